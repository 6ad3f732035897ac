"""``python -m zoo import`` writes a run folder that zoo's commands use, in zoo's id order (GPT-2's one
``<|endoftext|>`` split into zoo's ``<bos>`` and ``<eos>``), and ``python -m zoo export`` writes a folder that
``transformers`` loads with equal outputs; bad input is one line each, and nothing is written."""

import json

import pytest
import torch
import transformers

from tests.weights import helpers
from tests.weights.helpers import END, VOCAB, gpt2_with_its_own_specials, lines, tokenizer_json
from zoo.decoding.sequences import generate_ids
from zoo.inference.checkpoint import load_trained
from zoo.tasks import LanguageModelTask
from zoo.weights.export import main as export_main
from zoo.weights.importer import main as import_main


def test_an_imported_gpt2_computes_its_logits_under_zoo_ids_and_generates_as_transformers(tmp_path):
    hf, hf_tokenizer = gpt2_with_its_own_specials(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    trained = load_trained(str(tmp_path / "run" / "checkpoints" / "imported.ckpt"))
    ours = trained.tokenizers["text"]
    assert trained.task.hparams.vocab_size == VOCAB + 2  # <pad> and <bos> of their own (the tokenizer has <unk>)
    # every token keeps its text; zoo's <bos> (1) is GPT-2's <|endoftext|>, as is zoo's <eos> (2)
    to_hf = {z: hf_tokenizer.token_to_id(ours.id_to_token(z)) for z in range(3, VOCAB + 2)} | {1: END, 2: END}
    text = lines("tinyshakespeare", 1)[0]
    zoo_ids = [1, *ours.encode(text).ids]
    assert [to_hf[z] for z in zoo_ids[1:]] == hf_tokenizer.encode(text).ids
    with torch.no_grad():
        theirs = hf(torch.tensor([[to_hf[z] for z in zoo_ids]])).logits[0]
        logits = trained.task.network(torch.tensor([zoo_ids]))[0]
    for z, h in to_hf.items():
        if z != 1:
            assert (logits[:, z] - theirs[:, h]).abs().max() <= 1e-5
    assert (logits[:, [0, 1]] < -9000).all()  # the extra rows take no probability
    # zoo's language model never continues with <pad>, <bos> or <eos>: transformers without <|endoftext|>
    prompt = torch.tensor(zoo_ids)
    continued = generate_ids(trained.task.network, prompt, 20, 2, 0)[0]
    start = torch.tensor([[to_hf[z] for z in zoo_ids]])
    # the mask given: transformers would take <|endoftext|>, GPT-2's padding when it has none, for padding
    expected = hf.generate(
        start, attention_mask=torch.ones_like(start), max_new_tokens=20, do_sample=False, bad_words_ids=[[END]]
    )[0, len(zoo_ids) :].tolist()
    assert [to_hf[z] for z in continued] == expected


@pytest.mark.parametrize("family", ["gpt2", "llama", "bert", "marian"])
def test_import_then_export_gives_transformers_the_same_outputs(tmp_path, family, capsys):
    hf = getattr(helpers, family)(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    assert export_main(["--ckpt_path", ckpt, "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    decoding = [] if family == "bert" else ["generation_config.json"]  # a classifier generates nothing
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", *decoding]
    )
    again = getattr(transformers, json.loads((tmp_path / "out" / "config.json").read_text())["architectures"][0])
    back = again.from_pretrained(tmp_path / "out").eval()
    ids, mask = helpers.encode(lines("multi30k", 4, "en"), start=[1], end=[2])
    inputs = {"input_ids": ids, "attention_mask": (~mask).long()}
    if family == "marian":
        inputs |= {"decoder_input_ids": ids, "decoder_attention_mask": (~mask).long()}
    with torch.no_grad():
        before, after = hf(**inputs), back(**inputs)
    key = "last_hidden_state" if family == "bert" else "logits"
    assert (before[key] - after[key])[~mask].abs().max() <= 1e-5


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    helpers.gpt2(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    capsys.readouterr()  # save_pretrained's progress
    cases = []
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "config.json").write_text((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "empty" / "tokenizer.json").write_text((tmp_path / "hf" / "tokenizer.json").read_text())
    cases.append((tmp_path / "empty", "has no weights (model.safetensors"))
    (tmp_path / "t5").mkdir()
    (tmp_path / "t5" / "config.json").write_text(json.dumps({"model_type": "t5"}))
    cases.append(
        (tmp_path / "t5", "model_type='t5' is not a family zoo imports; zoo imports gpt2, bert, llama, marian")
    )
    (tmp_path / "opus").mkdir()
    for name in ("config.json", "model.safetensors"):
        (tmp_path / "opus" / name).write_bytes((tmp_path / "hf" / name).read_bytes())
    for name in ("source.spm", "target.spm", "vocab.json"):
        (tmp_path / "opus" / name).write_text("{}")
    cases.append((tmp_path / "opus", "has no tokenizer.json (nor Marian's source.spm and target.spm); convert"))
    for name, text, message in [
        ("truncated", '{"version": "1.0", "model', "tokenizer.json' is not valid JSON"),
        ("listed", "[]", "tokenizer.json' holds no JSON object"),
        ("no_model", '{"model": 3}', "tokenizer.json' is no tokenizer the tokenizers library reads"),
    ]:
        (tmp_path / name).mkdir()
        for file in ("config.json", "model.safetensors"):
            (tmp_path / name / file).write_bytes((tmp_path / "hf" / file).read_bytes())
        (tmp_path / name / "tokenizer.json").write_text(text)
        cases.append((tmp_path / name, message))
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**config, "scale_attn_by_inverse_layer_idx": True}))
    cases.append((tmp_path / "hf", "scale_attn_by_inverse_layer_idx=True has no zoo counterpart"))
    for source, message in cases:
        assert import_main([str(source), "--out", str(tmp_path / "run")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("zoo import: error: ") and message in err, err
        assert not (tmp_path / "run").exists()


def test_a_model_no_architecture_matches_is_refused_naming_its_knobs(tmp_path, capsys):
    helpers.gpt2(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    capsys.readouterr()
    ckpt = tmp_path / "run" / "checkpoints" / "imported.ckpt"
    checkpoint = torch.load(ckpt, weights_only=True)
    checkpoint["hyper_parameters"] |= {"scale_embedding": True}  # no weight changes shape
    torch.save(checkpoint, tmp_path / "post.ckpt")
    assert export_main(["--ckpt_path", str(tmp_path / "post.ckpt"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == (
        "zoo export: error: no Hugging Face architecture matches this model: nearest is gpt2 (GPT2LMHeadModel), "
        "which has no counterpart for scale_embedding=True\n"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "knobs, named",
    [({"norm": "rmsnorm"}, "norm='rmsnorm'"), ({"pe": "alibi"}, "pe='alibi'"), ({"activation": "swiglu"}, None)],
)
def test_a_knob_no_family_has_is_refused_by_export_in_one_line(tmp_path, capsys, knobs, named):
    helpers.gpt2(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    checkpoint = torch.load(tmp_path / "run" / "checkpoints" / "imported.ckpt", weights_only=True)
    checkpoint["hyper_parameters"] |= knobs
    # a model trained with that knob: its weights (other names, other shapes) as the knob makes them
    hparams = {k: v for k, v in checkpoint["hyper_parameters"].items() if k != "_class_path"}
    checkpoint["state_dict"] = LanguageModelTask(**hparams).state_dict()
    torch.save(checkpoint, tmp_path / "other.ckpt")
    capsys.readouterr()
    assert export_main(["--ckpt_path", str(tmp_path / "other.ckpt"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no Hugging Face architecture matches this model: nearest is " in err, err
    assert named is None or named in err
    assert not (tmp_path / "out").exists()


def test_an_out_folder_under_a_file_is_refused_by_import_and_export_in_one_line(tmp_path, capsys):
    helpers.gpt2(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    (tmp_path / "a_file").write_text("")
    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    capsys.readouterr()
    for command, args in [(import_main, [str(tmp_path / "hf")]), (export_main, ["--ckpt_path", ckpt])]:
        assert command([*args, "--out", str(tmp_path / "a_file" / "out")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"is under {str(tmp_path / 'a_file')!r}, a file; name a new folder" in err


@pytest.mark.parametrize(
    ("family", "theirs"),
    [("marian", "attention_dropout"), ("bert", "attention_probs_dropout_prob"), ("gpt2", "attn_pdrop")],
)
def test_the_attention_dropout_is_imported_and_exported_apart_from_the_residual_dropout(tmp_path, family, theirs):
    """Marian's opus-mt drop no attention weights (0.0) beside a residual dropout of 0.1: the import applied 0.1."""
    getattr(helpers, family)(tmp_path / "hf")
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    (tmp_path / "hf" / "config.json").write_text(json.dumps({**config, theirs: 0.05}))
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    ckpt = tmp_path / "run" / "checkpoints" / "imported.ckpt"
    task = load_trained(str(ckpt)).task
    attention = next(module for name, module in task.network.named_modules() if name.endswith("self_attn"))
    assert task.hparams.attention_dropout == attention.dropout == 0.05 and task.hparams.dropout == 0.1
    assert export_main(["--ckpt_path", str(ckpt), "--out", str(tmp_path / "out")]) == 0
    assert json.loads((tmp_path / "out" / "config.json").read_text())[theirs] == 0.05
