"""``validate``, ``test`` and ``predict`` need only a run's checkpoint (its ``config.yaml`` beside it is the
config, flags still override); ``predict`` never replaces a file and names the checkpoint that made it; the lines
a ``validate`` or ``test`` adds to ``metrics.jsonl`` are marked, and no reader takes them for training's."""

import json
import shutil

import pytest
import yaml

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL, VARIANTS, read_run, small_copy
from tests.compare.test_wandb import fake_api_run
from zoo.cli.main import main
from zoo.compare import wandb_runs
from zoo.compare.records import load_run_folder
from zoo.runs.record import RunRecord


@pytest.fixture
def trained(data_dir, cli_env):
    """A tiny SST-2 classifier trained 6 steps (validated at 3 and 6), on data with a test split."""
    config, name, extra, _ = VARIANTS["encoder_only"]
    path = small_copy(data_dir, name, cli_env / "sst2", {"train": 300, "validation": 40})
    shutil.copy(path / "validation.jsonl", path / "test.jsonl")
    common = [f"--data.path={path}", *TINY_MODEL, *extra, "--data.vocab_size=200", *FEW_STEPS]
    main(["fit", "--config", str(CONFIGS / config), *common])
    (run_dir,) = (cli_env / "runs").iterdir()
    return run_dir


def test_validate_test_and_predict_need_only_the_checkpoint(trained, capsys):
    last = trained / "checkpoints" / "last.ckpt"
    capsys.readouterr()
    main(["validate", f"--ckpt_path={last}"])
    assert f"zoo: validate of {last} with its run's config {trained.resolve() / 'config.yaml'} (flags override it)" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):  # the config alone on stdout, as it reads back
        main(["validate", f"--ckpt_path={last}", "--print_config"])
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["model"]["init_args"]["d_model"] == read_run(trained)["config"]["model.d_model"]
    main(["test", f"--ckpt_path={last}"])
    main(["validate", f"--ckpt_path={last}", "--trainer.limit_val_batches=1"])  # a flag over the run's config
    lines = read_run(trained)["metrics"]
    assert [(line["command"], line["step"]) for line in lines[-3:]] == [("validate", 6), ("test", 6), ("validate", 6)]
    assert {"val_acc", "partial/test_acc", "partial/val_acc"} <= {key for line in lines[-3:] for key in line}
    assert "command" not in {key for line in lines[:-3] for key in line}  # fit's lines
    assert "wandb_error" not in read_run(trained)["summary"]  # W&B took the command beside the metrics
    main(["predict", f"--ckpt_path={last}"])
    assert (trained / "predictions.test.last-step6.jsonl").is_file()
    assert len(list(trained.parent.iterdir())) == 1  # no other run folder

    outside = trained.parent.parent / "outside"  # no run folder, no config.yaml: the config must be given
    outside.mkdir()
    shutil.copy(last, outside / "model.ckpt")
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        main(["validate", f"--ckpt_path={outside / 'model.ckpt'}"])
    assert refused.value.code == 2
    assert capsys.readouterr().err == (
        f"zoo: error: validate of ckpt_path={str(outside / 'model.ckpt')!r}: it is not in a run folder with a "
        f"config.yaml ({outside.parent / 'config.yaml'} is not a file), which would give its model and data; pass "
        "--config with the config it was trained with\n"
    )


def test_an_evaluation_refused_after_its_run_config_is_read_is_one_line(trained, capsys):
    """The line saying which run config an evaluation reads came before the refusal, two lines where a refusal
    is one: it is said once the checks have passed."""
    last = trained / "checkpoints" / "last.ckpt"
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        main(["validate", f"--ckpt_path={last}", "--model.d_ff=128"])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"zoo: error: ckpt_path='{last}' was trained with another configuration: model.d_ff=128")


def test_predict_twice_keeps_both_files_and_names_their_checkpoints(trained, caplog):
    last, (best,) = trained / "checkpoints" / "last.ckpt", (trained / "checkpoints").glob("best-step*.ckpt")
    for ckpt in (last, last, best):
        main(["predict", f"--ckpt_path={ckpt}"])
    files = sorted(path.name for path in trained.glob("predictions.*"))
    assert files == sorted(
        [
            "predictions.test.last-step6.jsonl",
            "predictions.test.last-step6-2.jsonl",
            f"predictions.test.{best.stem}.jsonl",
        ]
    )
    first, again = (trained / name for name in files if name.startswith("predictions.test.last"))
    assert first.read_text() == again.read_text() and len(first.read_text().splitlines()) == 40
    assert read_run(trained)["summary"]["predictions"]["test"] == str(trained / f"predictions.test.{best.stem}.jsonl")
    assert f"zoo: 40 predictions for the 'test' split by {best} written to " in caplog.text


def test_an_evaluations_lines_are_never_training_curve_or_best(trained):
    """A validate re-measures a checkpoint: its line at the run's step neither replaces fit's point of the curve in
    compare nor counts for the best when the summary is rebuilt from metrics.jsonl (its value is made the best of
    all here, as another data order or a nondeterministic kernel could make it)."""
    main(["validate", f"--ckpt_path={trained / 'checkpoints' / 'last.ckpt'}"])
    main(["test", f"--ckpt_path={trained / 'checkpoints' / 'last.ckpt'}"])
    metrics = trained / "metrics.jsonl"
    lines = [json.loads(line) for line in metrics.read_text().splitlines()]
    fit_curve = [(line["step"], line["val_acc"]) for line in lines if "val_acc" in line and "command" not in line]
    assert [step for step, _ in fit_curve] == [3, 6]
    validate_line = next(line for line in lines if line.get("command") == "validate")
    validate_line["val_acc"], validate_line["val_loss"] = 1.0, 0.0
    metrics.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run = load_run_folder(trained)
    assert run.history["val_acc"] == fit_curve
    online = wandb_runs._history(fake_api_run(trained))  # W&B's rows carry the command too
    assert online["val_acc"] == fit_curve and online["partial/test_acc"] == run.history["partial/test_acc"]
    tested = next(line["partial/test_acc"] for line in lines if line.get("command") == "test")
    assert run.history["partial/test_acc"] == [(6, tested)]  # a metric fit never logs: the test's own point
    best = read_run(trained)["summary"]["best"]
    (trained / "summary.json").write_text("{damaged")
    rebuilt = RunRecord(trained).summary
    assert rebuilt["best"] == best and rebuilt["best"]["val_acc"]["value"] < 1.0
