"""Every tensor of an imported folder is accounted for: BERT's pooler and a ``BertForSequenceClassification``'s
classifier are imported as zoo's, a head with no counterpart is named in the line and recorded, and a tensor
the model ``config.json`` describes has no place for is refused in one line, nothing written."""

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from tests.weights import helpers
from tests.weights.helpers import lines, tokenizer_json
from zoo.inference.checkpoint import load_trained
from zoo.weights.export import main as export_main
from zoo.weights.importer import main as import_main


def imported(tmp_path, capsys, *options: str):
    """Import ``tmp_path/hf`` into ``tmp_path/run``: the trained task, its checkpoint's record and the line."""
    tokenizer_json(tmp_path / "hf")
    capsys.readouterr()
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run"), *options]) == 0
    line = capsys.readouterr().out
    ckpt = tmp_path / "run" / "checkpoints" / "imported.ckpt"
    return load_trained(str(ckpt)).task.eval(), torch.load(ckpt, weights_only=True)["zoo_imported"], line


def refused(tmp_path, capsys, message: str, *options: str) -> None:
    capsys.readouterr()
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run"), *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("zoo import: error: ") and message in err, err
    assert not (tmp_path / "run").exists()


def test_a_sequence_classifier_imports_with_its_pooler_and_classifier_and_predicts_as_transformers(
    tmp_path, capsys
):
    hf = helpers.bert(tmp_path / "hf", head="classifier", num_labels=3)
    task, record, line = imported(tmp_path, capsys)
    assert "(BertModel, with its pooler and its classifier (3 labels); framing text" in line, line
    assert record["not_imported"] == []
    assert (task.hparams.pooling, task.hparams.pooler, task.hparams.num_classes) == ("cls", "tanh", 3)
    ids, mask = helpers.encode(lines("sst2", 6, "sentence"), start=[1], end=[2])
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=(~mask).long()).logits
        ours = task(ids, mask)
    assert (ours - theirs).abs().max() <= 1e-5
    assert ours.argmax(-1).tolist() == theirs.argmax(-1).tolist()


def test_a_classifier_of_other_labels_than_asked_is_named_and_a_new_head_made(tmp_path, capsys):
    helpers.bert(tmp_path / "hf", head="classifier", num_labels=3)
    task, record, line = imported(tmp_path, capsys, "--num_classes", "2")
    assert "with its pooler and a new classifier (2 labels)" in line
    assert "not imported: classifier.bias, classifier.weight (2 tensors or modules of heads" in line, line
    assert record["not_imported"] == ["classifier.bias", "classifier.weight"]
    assert task.head[1].weight.shape == (2, 64)


def test_the_pre_training_heads_are_named_and_the_pooler_of_a_bert_model_taken(tmp_path, capsys):
    hf = helpers.bert(tmp_path / "hf", head="mlm")
    _, record, line = imported(tmp_path, capsys)
    assert record["not_imported"] and all(name.startswith("cls.predictions.") for name in record["not_imported"])
    assert "not imported: cls.predictions." in line and "a new classifier (2 labels)" in line, line
    assert not any("pooler" in name for name, _ in hf.named_parameters())  # BertForMaskedLM has no pooler
    helpers.bert(tmp_path / "pooled" / "hf", head="pooler")
    task, record, line = imported(tmp_path / "pooled", capsys)
    assert task.hparams.pooler == "tanh" and record["not_imported"] == []
    assert "with its pooler and a new classifier (2 labels)" in line, line


def test_a_bias_config_json_does_not_declare_is_refused(tmp_path, capsys):
    helpers.llama(tmp_path / "hf", attention_bias=True)
    tokenizer_json(tmp_path / "hf")
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**config, "attention_bias": False}))
    refused(tmp_path, capsys, "the weights' model.layers.0.self_attn.k_proj.bias (8 such tensors) has no place")


def test_a_layer_beyond_the_depth_and_an_untied_copy_are_refused(tmp_path, capsys):
    helpers.gpt2(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    weights = tmp_path / "hf" / "model.safetensors"
    state = load_file(weights)
    save_file({**state, "lm_head.weight": state["transformer.wte.weight"] + 1}, weights)
    refused(tmp_path, capsys, "the weights' lm_head.weight differs from wte.weight, which config.json ties it to")
    save_file({**state, "lm_head.weight": state["transformer.wte.weight"].clone()}, weights)
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "tied")]) == 0  # an equal copy is read
    layer = {name: t for name, t in state.items() if name.startswith("transformer.h.1.")}
    extra = {name.replace("h.1.", "h.2."): t.clone() for name, t in layer.items()}
    save_file({**state, **extra}, weights)
    refused(tmp_path, capsys, "the weights' transformer.h.2.")


@pytest.mark.parametrize(
    "key, value", [("eos_token_id", [2, 3]), ("bos_token_id", "1"), ("pad_token_id", True)]
)
def test_a_special_id_that_is_not_one_integer_is_refused(tmp_path, capsys, key, value):
    helpers.llama(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**config, key: value}))
    refused(tmp_path, capsys, f"config.json's {key}={value!r} is not one token id")


def test_an_imported_sequence_classifier_exports_as_one_with_equal_predictions(tmp_path, capsys):
    hf = helpers.bert(tmp_path / "hf", head="classifier", num_labels=3)
    imported(tmp_path, capsys)
    ids, mask = helpers.encode(lines("sst2", 6, "sentence"), start=[1], end=[2])
    with torch.no_grad():
        before = hf(input_ids=ids, attention_mask=(~mask).long()).logits
    assert (before - exported_logits(tmp_path, capsys, ids, mask)).abs().max() <= 1e-5


def exported_logits(tmp_path, capsys, ids, mask) -> torch.Tensor:
    """Export ``tmp_path/run``'s imported checkpoint: the logits of ``AutoModelForSequenceClassification`` of the
    folder written, which the line names as ``BertForSequenceClassification``."""
    from transformers import AutoModelForSequenceClassification

    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    assert export_main(["--ckpt_path", ckpt, "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.startswith("wrote BertForSequenceClassification to ")
    back = AutoModelForSequenceClassification.from_pretrained(tmp_path / "out").eval()
    with torch.no_grad():
        return back(input_ids=ids, attention_mask=(~mask).long()).logits


def test_a_classifier_of_other_pooling_exports_its_backbone_and_says_the_head_is_left_out(tmp_path, capsys):
    helpers.bert(tmp_path / "hf")
    imported(tmp_path, capsys)
    ckpt = tmp_path / "run" / "checkpoints" / "imported.ckpt"
    checkpoint = torch.load(ckpt, weights_only=True)
    checkpoint["hyper_parameters"] |= {"pooling": "mean"}
    torch.save(checkpoint, tmp_path / "mean.ckpt")
    assert export_main(["--ckpt_path", str(tmp_path / "mean.ckpt"), "--out", str(tmp_path / "out")]) == 0
    line = capsys.readouterr().out
    assert line.startswith("wrote BertModel to ") and line.count("\n") == 1
    assert line.endswith(
        "; the classifier's head is not in the folder (BertForSequenceClassification needs model.pooling=cls, "
        "model.pooler=tanh; this model has model.pooling=mean, model.pooler=none)\n"
    ), line


def test_a_recurrent_checkpoint_is_refused_by_export_in_one_line(tmp_path, capsys):
    from zoo.tasks import LanguageModelTask

    helpers.gpt2(tmp_path / "hf")
    imported(tmp_path, capsys)
    checkpoint = torch.load(tmp_path / "run" / "checkpoints" / "imported.ckpt", weights_only=True)
    task = LanguageModelTask(vocab_size=checkpoint["hyper_parameters"]["vocab_size"], architecture="rnn")
    checkpoint["hyper_parameters"] = {**dict(task.hparams), "_class_path": "zoo.tasks.LanguageModelTask"}
    checkpoint["state_dict"] = task.state_dict()
    torch.save(checkpoint, tmp_path / "rnn.ckpt")
    assert export_main(["--ckpt_path", str(tmp_path / "rnn.ckpt"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "this checkpoint is a RecurrentLanguageModel (model.architecture=rnn)" in err
    assert not (tmp_path / "out").exists()


def sentence_transformers_folder(folder, modes: dict) -> torch.nn.Module:
    """A BertModel saved as sentence-transformers saves one: ``modules.json``, ``1_Pooling``, ``2_Normalize``."""
    hf = helpers.bert(folder, head="pooler")
    modules = [("0", "", "Transformer"), ("1", "1_Pooling", "Pooling"), ("2", "2_Normalize", "Normalize")]
    (folder / "modules.json").write_text(json.dumps(
        [{"idx": i, "name": name, "path": path, "type": f"sentence_transformers.models.{kind}"}
         for i, (name, path, kind) in enumerate(modules)]
    ))  # fmt: skip
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 64, **modes}))
    (folder / "2_Normalize").mkdir()
    return hf


def test_a_sentence_transformers_folder_pools_as_its_modules_json_says(tmp_path, capsys):
    """all-MiniLM-L6-v2's users pool the mean of its token states (1_Pooling): the import pooled [CLS] through
    BERT's pooler, which the published sentence embedding never used."""
    hf = sentence_transformers_folder(tmp_path / "hf", {"pooling_mode_mean_tokens": True})
    task, record, line = imported(tmp_path, capsys)
    assert "(BertModel, pooling mean as its modules.json says, with a new classifier (2 labels)" in line, line
    assert "not imported: pooler.dense.bias, pooler.dense.weight, 2_Normalize (Normalize)" in line, line
    assert record["not_imported"] == ["pooler.dense.bias", "pooler.dense.weight", "2_Normalize (Normalize)"]
    assert (task.hparams.pooling, task.hparams.pooler) == ("mean", "none")
    ids, mask = helpers.encode(lines("sst2", 6, "sentence"), start=[1], end=[2])
    with torch.no_grad():
        states = hf(input_ids=ids, attention_mask=(~mask).long()).last_hidden_state
        real = (~mask).unsqueeze(-1).float()
        embedding = (states * real).sum(1) / real.sum(1)  # sentence-transformers' mean pooling
        assert (task(ids, mask) - task.head(embedding)).abs().max() <= 1e-5


@pytest.mark.parametrize(
    ("modes", "told"),
    [
        ({"pooling_mode_max_tokens": True}, "pools by pooling_mode_max_tokens; zoo pools by one of"),
        ({"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": True}, "pools by pooling_mode_mean_tokens, "),
        ({}, "pools by no mode; zoo pools by one of pooling_mode_mean_tokens, pooling_mode_cls_token (model.pooling"
         "=mean or cls), or import with --pooling cls or mean"),
    ],
)
def test_a_sentence_pooling_zoo_has_not_is_refused_in_one_line(tmp_path, capsys, modes, told):
    sentence_transformers_folder(tmp_path / "hf", modes)
    tokenizer_json(tmp_path / "hf")
    refused(tmp_path, capsys, told)


def test_pooling_cls_takes_berts_pooler_from_a_sentence_transformers_folder_and_exports_as_a_classifier(
    tmp_path, capsys
):
    """--pooling cls: all-MiniLM-L6-v2 as AutoModelForSequenceClassification reads it, [CLS] through its pooler,
    so that the fine-tuned model exports as one and transformers predicts as zoo."""
    sentence_transformers_folder(tmp_path / "hf", {"pooling_mode_mean_tokens": True})
    task, record, line = imported(tmp_path, capsys, "--pooling", "cls")
    assert "(BertModel, pooling cls as --pooling says, with its pooler and a new classifier (2 labels)" in line, line
    assert record["not_imported"] == ["1_Pooling (Pooling)", "2_Normalize (Normalize)"]
    assert (task.hparams.pooling, task.hparams.pooler) == ("cls", "tanh")
    ids, mask = helpers.encode(lines("sst2", 6, "sentence"), start=[1], end=[2])
    with torch.no_grad():
        assert (exported_logits(tmp_path, capsys, ids, mask) - task(ids, mask)).abs().max() <= 1e-5


def test_pooling_mean_on_a_bert_folder_names_its_pooler_and_overrides_a_mode_zoo_has_not(tmp_path, capsys):
    helpers.bert(tmp_path / "hf", head="pooler")
    task, record, line = imported(tmp_path, capsys, "--pooling", "mean")
    assert "(BertModel, pooling mean as --pooling says, with a new classifier (2 labels)" in line, line
    assert record["not_imported"] == ["pooler.dense.bias", "pooler.dense.weight"]
    assert (task.hparams.pooling, task.hparams.pooler) == ("mean", "none")
    sentence_transformers_folder(tmp_path / "st", {"pooling_mode_max_tokens": True})
    tokenizer_json(tmp_path / "st")
    assert import_main([str(tmp_path / "st"), "--out", str(tmp_path / "st-run"), "--pooling", "mean"]) == 0
    assert "not imported: pooler.dense.bias, pooler.dense.weight, 1_Pooling (Pooling), 2_Normalize" in (
        capsys.readouterr().out
    )


def test_pooling_for_a_model_that_is_no_encoder_is_refused_in_one_line(tmp_path, capsys):
    helpers.gpt2(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    refused(tmp_path, capsys, "--pooling=mean is for an encoder's classifier, but ", "--pooling", "mean")
