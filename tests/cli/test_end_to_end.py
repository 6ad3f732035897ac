"""Each variant end to end on real data: fit a few steps, then validate and test from the checkpoint."""

import importlib
import re

import pytest
import torch
from tokenizers import Tokenizer

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL, VARIANTS, read_run, shakespeare_args
from zoo.cli.main import main
from zoo.runs.record import LINE_FIELDS
from zoo.tasks.translation import TranslationTask

TRAIN_METRICS = {"train_loss", "lr", "grad_norm", "tokens_per_sec"}


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fit_validate_test_on_real_data(variant, data_dir, cli_env, monkeypatch):
    config, data_name, extra, task_metric = VARIANTS[variant]
    common = ["--config", str(CONFIGS / config), f"--data.path={data_dir / data_name}", *TINY_MODEL, *extra, *FEW_STEPS]
    main(["fit", *common])

    runs = list((cli_env / "runs").iterdir())
    assert len(runs) == 1, runs
    run_dir = runs[0]
    assert re.search(r"-layernorm-pre-h2-s1-[0-9a-f]{6}$", run_dir.name)
    record = read_run(run_dir)
    logged = set().union(*(line.keys() for line in record["metrics"]))
    assert TRAIN_METRICS | {"val_loss", task_metric, "parameters"} <= logged
    # lr, grad_norm and tokens/s are logged only on the steps the loggers write, and are on every such line
    training_lines = [line for line in record["metrics"] if "train_loss" in line]
    assert len(training_lines) > 1 and all(TRAIN_METRICS <= set(line) for line in training_lines[1:])
    assert {"lr", "grad_norm"} <= set(training_lines[0])  # the first step has no previous step to time from
    module, _, name = record["config"]["model.class_path"].rpartition(".")
    task_class = getattr(importlib.import_module(module), name)
    assert logged - set(LINE_FIELDS) == set(task_class.logged_metrics())  # what a sweep's metric.name is checked by
    assert record["config"]["model.d_model"] == 32 and record["config"]["model.vocab_size"] > 4
    summary = record["summary"]
    assert summary["status"] == "finished"
    assert task_metric in summary["best"] and task_metric in summary["final"]
    last = run_dir / "checkpoints" / "last.ckpt"
    assert last.is_file() and (run_dir / "checkpoints").glob("best-*.ckpt")
    assert len(list((run_dir / "wandb").glob("offline-run-*"))) == 1
    checkpoint = torch.load(last, weights_only=False, map_location="cpu")
    saved = [v["tokenizers"] for v in checkpoint.values() if isinstance(v, dict) and "tokenizers" in v]
    assert saved and all(Tokenizer.from_str(t).token_to_id("<pad>") == 0 for t in saved[0].values())

    main(["validate", *common, f"--ckpt_path={last}"])  # the limit_val_batches it trained with: its own metrics
    assert read_run(run_dir)["metrics"][-1]["val_loss"] == read_run(run_dir)["summary"]["final"]["val_loss"]
    main(["validate", *common, f"--ckpt_path={last}", "--trainer.limit_val_batches=0.1"])  # another part
    partial = read_run(run_dir)["summary"]["partial_evaluations"]
    assert {"partial/val_loss", f"partial/{task_metric}"} <= set(partial)
    assert re.fullmatch(r"trainer\.limit_val_batches=0\.1 \(\d+ of \d+ batches\)", partial["partial/val_loss"])
    if task_metric == "val_bleu":  # another decoder than the run's: its BLEU is not the run's either
        before = read_run(run_dir)["summary"]["final"]["val_bleu"]
        main(["validate", *common, f"--ckpt_path={last}", "--model.beam_size=2"])
        main(["test", *common, f"--ckpt_path={last}", "--model.beam_size=2"])
        summary = read_run(run_dir)["summary"]
        assert summary["settings_evaluations"]["beam_size=2/val_bleu"] == "with beam_size=2"
        assert summary["partial_evaluations"]["partial/beam_size=2/test_bleu"].endswith("; with beam_size=2")
        assert summary["final"]["val_bleu"] == before and "beam_size=2/val_bleu" in summary["final"]
        # a teacher-forced loss depends on no decoder: it stays the run's (it was beam_size=2/test_loss)
        assert "beam_size=2/val_loss" not in summary["final"] and "beam_size=2/val_loss" not in str(summary)
        assert "partial/test_loss" in summary["final"] and "partial/beam_size=2/test_loss" not in summary["final"]
    if variant == "decoder_only":  # the whole split, where the run's validations took 2 batches: apart as well
        final = read_run(run_dir)["summary"]["final"]["val_loss"]
        main(["validate", *common, f"--ckpt_path={last}", "--trainer.limit_val_batches=1.0"])
        summary = read_run(run_dir)["summary"]
        assert summary["final"]["val_loss"] == final and "full/val_loss" in summary["final"]
        assert re.fullmatch(
            r"the whole split, \d+ batches \(the run validated on trainer\.limit_val_batches=2\)",
            summary["full_evaluations"]["full/val_loss"],
        )
    if any((data_dir / data_name).glob("test*")):
        main(["test", *common, f"--ckpt_path={last}"])  # 2 batches (FEW_STEPS): a smoke check, not a result
        tested = [line for line in read_run(run_dir)["metrics"] if "partial/test_loss" in line]
        assert {line["step"] for line in tested} == {6}  # the checkpoint's step, not 0 (also beam_size=2's test)
        summary = read_run(run_dir)["summary"]
        assert not [key for key in [*summary["final"], *summary["best"]] if key.startswith("test_")]
        assert re.fullmatch(
            r"trainer\.limit_test_batches=2 \(2 of \d+ batches\)", summary["partial_evaluations"]["partial/test_loss"]
        )
        decoded = []  # batches decoded: bleu_batches=1 limits validation's BLEU, never the test's
        translate = TranslationTask.pending_translations
        monkeypatch.setattr(
            TranslationTask, "pending_translations", lambda *a, **k: decoded.append(1) or translate(*a, **k)
        )
        main(["test", *common, f"--ckpt_path={last}", "--trainer.limit_test_batches=1.0"])  # the whole split
        assert task_metric != "val_bleu" or len(decoded) > 1
        summary = read_run(run_dir)["summary"]
        assert {"test_loss", f"test_{task_metric[4:]}"} <= set(summary["final"]) and "test_loss" not in summary["best"]
        if task_metric == "val_bleu":
            assert {"test_bleu", "test_chrf", "test_bleu_lowercase"} <= set(summary["final"])
            for name, case in (("test_bleu", "mixed"), ("test_bleu_lowercase", "lc")):
                signature = summary[f"{name}_signature"]
                assert re.fullmatch(rf"nrefs:1\|case:{case}\|eff:no\|tok:13a\|smooth:exp\|version:[\d.]+", signature)
    else:  # SST-2's test labels are hidden: the local copy has no test split, and `test` says so
        with pytest.raises(SystemExit) as exit_info:
            main(["test", *common, f"--ckpt_path={last}"])
        assert exit_info.value.code == 2
    assert list((cli_env / "runs").iterdir()) == [run_dir]  # no new run folder for evaluation


def test_metrics_only_the_loggers_read_reach_them_at_every_logging_step(data_dir, cli_env):
    """``lr``, ``grad_norm`` and ``tokens_per_sec`` are logged only on the steps the loggers write
    (``log_every_n_steps``, and the last step, which is not a multiple of it), and every such line has them,
    with the lr of its own step."""
    main([*shakespeare_args(data_dir), "--trainer.log_every_n_steps=5", "--model.schedule=cosine"])
    (run_dir,) = (cli_env / "runs").iterdir()
    record = read_run(run_dir)
    lines = [line for line in record["metrics"] if "train_loss" in line]
    assert [line["step"] for line in lines] == [4, 5]
    assert all(TRAIN_METRICS <= set(line) for line in lines)
    assert lines[0]["lr"] > lines[1]["lr"] > 0  # the cosine decay after 2 warm-up steps, each its own step's
    assert TRAIN_METRICS <= set(record["summary"]["final"])


def test_quickstart_generates_its_data_and_trains(cli_env):
    main(["fit", "--config", str(CONFIGS / "quickstart.yaml"), *FEW_STEPS, "--data.num_train=500"])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert re.fullmatch(r"ed-reverse-sinusoidal-layernorm-pre-h4-s1-[0-9a-f]{6}", run_dir.name)
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "finished" and "val_exact_match" in summary["final"]
