"""``fit --init_weights``: a new run started from an imported Hugging Face model's weights and tokenizer, on real
data (Tiny Shakespeare, SST-2), exported back and loaded by ``from_pretrained`` with equal logits; what does not
fit told in one line before training."""

from __future__ import annotations

import json
import logging

import pytest
import torch
import transformers

from tests.weights import helpers
from tests.weights.helpers import DATA, lines, tokenizer_json
from zoo.cli.main import main
from zoo.inference.checkpoint import load_trained
from zoo.weights.export import main as export_main
from zoo.weights.importer import main as import_main

SHORT = ["--trainer.val_check_interval=2", "--trainer.limit_val_batches=1", "--trainer.enable_progress_bar=false"]


def imported(tmp_path, family: str, *options: str):
    """The Hugging Face model of ``family`` saved with ``save_pretrained`` and imported; its run folder back."""
    hf = getattr(helpers, family)(tmp_path / "hf")
    tokenizer_json(tmp_path / "hf")
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "imported"), *options]) == 0
    return hf, tmp_path / "imported"


def fit(run, data: str, *options: str):
    """``fit`` of the imported run's config from its weights; the new run's folder and its last checkpoint."""
    ckpt = run / "checkpoints" / "imported.ckpt"
    main(["fit", f"--config={run / 'config.yaml'}", f"--init_weights={ckpt}", f"--data.path={DATA / data}", *options])
    (run_dir,) = (run.parent / "runs").iterdir()
    return run_dir, run_dir / "checkpoints" / "last.ckpt"


def exported_logits(ckpt, out, ids, mask):
    assert export_main(["--ckpt_path", str(ckpt), "--out", str(out)]) == 0
    back = transformers.AutoModelForCausalLM.from_pretrained(out).eval()
    with torch.no_grad():
        return back(input_ids=ids, attention_mask=(~mask).long()).logits


def test_gpt2_fine_tuned_on_tiny_shakespeare_exports_the_weights_it_trained(cli_env, caplog):
    hf, run = imported(cli_env, "gpt2")
    with caplog.at_level(logging.INFO):
        run_dir, last = fit(run, "tinyshakespeare", "--trainer.max_steps=3", "--model.lr=1e-3", *SHORT)
    ckpt = run / "checkpoints" / "imported.ckpt"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["init_weights"]["path"] == str(ckpt) and summary["init_weights"]["new"] == []
    assert summary["init_weights"]["imported"]["architecture"] == "GPT2LMHeadModel"
    assert f"init_weights: {ckpt}" in (run_dir / "config.yaml").read_text()
    said = (
        f"zoo: the run starts from the weights of {ckpt} (a new run, not a resume; every weight of this model from "
        f"it) and reads its data"
    )
    told = [line for line in caplog.messages if line.startswith(said)]
    assert len(told) == 1 and "data.tokenizer=" in told[0] and told[0].endswith("are not used")
    ids, mask = helpers.encode(lines("tinyshakespeare", 4), start=[1], end=[2])
    logits = exported_logits(last, cli_env / "out", ids, mask)
    with torch.no_grad():
        ours = load_trained(str(last)).task.network(ids)  # causal: right padding changes no real position
        original = hf(input_ids=ids, attention_mask=(~mask).long()).logits
    assert (logits - ours)[~mask].abs().max() <= 1e-5  # the model zoo trained, in transformers
    assert (logits - original)[~mask].abs().max() > 1e-3  # and trained: not the imported one


def test_with_a_negligible_learning_rate_the_fine_tuned_run_is_the_imported_model(cli_env):
    """lr 1e-12 (Adam moves a weight by about lr a step): the three steps leave the weights where
    ``--init_weights`` put them, so the export of the new run gives the Hugging Face model's own logits: the
    weights were loaded, every one of them, in place."""
    hf, run = imported(cli_env, "gpt2")
    _, last = fit(run, "tinyshakespeare", "--trainer.max_steps=3", "--model.lr=1e-12", *SHORT)
    ids, mask = helpers.encode(lines("tinyshakespeare", 4), start=[1], end=[2])
    logits = exported_logits(last, cli_env / "out", ids, mask)
    with torch.no_grad():
        original = hf(input_ids=ids, attention_mask=(~mask).long()).logits
    assert (logits - original)[~mask].abs().max() <= 1e-5


def test_bert_fine_tuned_on_sst2_says_its_new_head_before_training(cli_env, caplog):
    hf, run = imported(cli_env, "bert")
    ckpt = run / "checkpoints" / "imported.ckpt"
    headless = torch.load(ckpt, weights_only=True)
    heads = [name for name in headless["state_dict"] if "classifier" in name or name.startswith("head")]
    headless["state_dict"] = {k: v for k, v in headless["state_dict"].items() if k not in heads}
    torch.save(headless, ckpt)
    with caplog.at_level(logging.INFO):
        run_dir, _ = fit(run, "sst2", "--trainer.max_steps=2", *SHORT)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert heads and summary["init_weights"]["new"] == heads
    assert any(f"the checkpoint has no {', '.join(heads)}" in record.getMessage() for record in caplog.records)


def test_a_knob_that_changes_a_weight_shape_is_one_line_before_training(cli_env, capsys):
    _, run = imported(cli_env, "gpt2")
    capsys.readouterr()  # what save_pretrained said
    with pytest.raises(SystemExit) as exit_info:
        fit(run, "tinyshakespeare", "--model.d_ff=64", "--trainer.max_steps=2", *SHORT)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1, err
    assert f"init_weights={str(run / 'checkpoints' / 'imported.ckpt')!r} does not fit this model: " in err
    assert "(256, 64) in the checkpoint, (64, 64) here" in err
    assert not (cli_env / "runs").exists() or not any((cli_env / "runs").iterdir())


def test_init_weights_typed_for_an_evaluation_is_one_line_and_a_fine_tuned_run_validates(cli_env, capsys):
    _, run = imported(cli_env, "gpt2")
    run_dir, last = fit(run, "tinyshakespeare", "--trainer.max_steps=2", *SHORT)
    capsys.readouterr()
    validate = ["validate", f"--ckpt_path={last}", f"--data.path={DATA / 'tinyshakespeare'}"]
    with pytest.raises(SystemExit) as exit_info:
        main([*validate, f"--init_weights={run / 'checkpoints' / 'imported.ckpt'}"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.splitlines()[-1].startswith("zoo: error: init_weights"), err
    assert "init_weights is an option of `fit` (a new run from a checkpoint's weights); `validate` eval" in err
    main([*validate, "--trainer.limit_val_batches=1"])  # its own config.yaml records init_weights
    assert "val_loss" in json.loads((run_dir / "summary.json").read_text())["final"]


def test_a_checkpoint_weight_the_model_has_no_place_for_is_said_and_recorded(cli_env, caplog):
    """A GPT-2 with only ``<|endoftext|>`` imports with ``output_bias`` (its extra rows held at -1e4); fine-tuned
    with ``--model.output_bias=false`` (to export it), the bias has no place in the new model: it is left out,
    and said and recorded, where it was dropped without a word while the line said every weight came from it; the
    fine-tuned model exports, and ``from_pretrained`` gives its logits."""
    helpers.gpt2_with_its_own_specials(cli_env / "hf")
    assert import_main([str(cli_env / "hf"), "--out", str(cli_env / "imported")]) == 0
    run = cli_env / "imported"
    with caplog.at_level(logging.INFO):
        run_dir, last = fit(run, "tinyshakespeare", "--model.output_bias=false", "--trainer.max_steps=2", *SHORT)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["init_weights"]["new"] == [] and summary["init_weights"]["unused"] == ["network.output.linear.bias"]
    ckpt = run / "checkpoints" / "imported.ckpt"
    said = (
        f"zoo: the run starts from the weights of {ckpt} (a new run, not a resume; every weight of this model from "
        "it; this model has no place for the checkpoint's network.output.linear.bias, left out) and reads its data"
    )
    assert sum(message.startswith(said) for message in caplog.messages) == 1
    ids, mask = helpers.encode(lines("tinyshakespeare", 3), start=[1], end=[2])
    # exported in GPT-2's own ids: zoo's id z is the checkpoint's rows[z]; its two extra rows are dropped
    record = torch.load(last, weights_only=True)["zoo_imported"]["vocabulary"]
    rows, real = torch.tensor(record["rows"]), [z for z in range(len(record["rows"])) if z not in record["extra"]]
    logits = exported_logits(last, cli_env / "out", rows[ids], mask)  # exportable now, as docs/weights.md says
    assert logits.shape[-1] == record["size"] == helpers.VOCAB
    with torch.no_grad():
        ours = load_trained(str(last)).task.network(ids)
    assert (logits[..., rows[real]] - ours[..., real])[~mask].abs().max() <= 1e-5


def test_a_sequence_classifier_fine_tuned_on_sst2_exports_as_one_with_zoo_s_predictions(cli_env):
    """BertForSequenceClassification imported (pooler, classifier), fine-tuned, exported: ``AutoTokenizer`` and
    ``AutoModelForSequenceClassification`` of the folder give the fine-tuned model's predictions."""
    helpers.bert(cli_env / "hf", head="classifier", num_labels=2)
    tokenizer_json(cli_env / "hf")
    assert import_main([str(cli_env / "hf"), "--out", str(cli_env / "imported")]) == 0
    _, last = fit(cli_env / "imported", "sst2", "--trainer.max_steps=2", "--model.lr=1e-3", *SHORT)
    assert export_main(["--ckpt_path", str(last), "--out", str(cli_env / "out")]) == 0
    tokenizer = transformers.AutoTokenizer.from_pretrained(cli_env / "out")
    back = transformers.AutoModelForSequenceClassification.from_pretrained(cli_env / "out").eval()
    inputs = tokenizer(lines("sst2", 16, "sentence"), padding=True, return_tensors="pt")
    with torch.no_grad():
        theirs = back(**inputs).logits
        ours = load_trained(str(last)).task.eval()(inputs["input_ids"], inputs["attention_mask"] == 0)
    assert (theirs - ours).abs().max() <= 1e-5
