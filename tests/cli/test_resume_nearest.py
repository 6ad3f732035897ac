"""``--ckpt_path last`` of a configuration no run has names the nearest run and every field in which it
differs, whether the change is an architecture knob of the run name (``model.n_heads``: another name family)
or another field (``model.lr``: the same family)."""

import json

import pytest

from tests.cli.helpers import shakespeare_args
from zoo.cli.main import main
from zoo.runs.folders import RunFolderError, find_resumable

TASK = {"model.class_path": "zoo.tasks.LanguageModelTask", "data.class_path": "zoo.data.TextDataModule"}


def fake_run(runs, name: str, **fields) -> dict:
    """A run folder ``runs/name`` with a record of ``fields`` (and the task's classes) and a last checkpoint."""
    record = {**TASK, "data.path": "data/x", "seed_everything": 1, **fields}
    (runs / name / "checkpoints").mkdir(parents=True)
    (runs / name / "checkpoints" / "last.ckpt").write_bytes(b"")
    (runs / name / "config.json").write_text(json.dumps(record))
    return record


def test_another_name_family_names_the_nearest_run_of_the_task_and_every_field(tmp_path):
    """It said "no runs/lm-...-h8-s1*/checkpoints/last.ckpt of this configuration" and named no run."""
    runs = tmp_path / "runs"
    near = fake_run(runs, "lm-x-rope-layernorm-pre-h4-s1-aaaaaa", **{"model.n_heads": 4, "model.lr": 0.001})
    fake_run(runs, "lm-x-rope-layernorm-pre-h2-s1-bbbbbb", **{"model.n_heads": 2, "model.lr": 0.01})
    fake_run(runs, "cls-x-rope-layernorm-pre-h8-s1-cccccc", **{**near, "model.class_path": "zoo.tasks.Other"})
    command = {**near, "model.n_heads": 8}
    with pytest.raises(RunFolderError) as error:
        find_resumable(runs, "lm-x-rope-layernorm-pre-h8-s1-dddddd", command, "lm-x-rope-layernorm-pre-h8-s1")
    assert str(error.value) == (
        f"ckpt_path='last': no run of this configuration; the nearest, {runs / 'lm-x-rope-layernorm-pre-h4-s1-aaaaaa'}"
        f", was trained with another configuration: model.n_heads=8 (the run has 4); resume it with its own config "
        f"(--config {runs / 'lm-x-rope-layernorm-pre-h4-s1-aaaaaa' / 'config.yaml'}), or start a new run without "
        f"--ckpt_path"
    )


def test_the_same_family_names_the_nearest_run_not_the_latest(tmp_path):
    runs = tmp_path / "runs"
    family = "lm-x-rope-layernorm-pre-h4-s1"
    near = fake_run(runs, f"{family}-aaaaaa", **{"model.lr": 0.001, "model.dropout": 0.1})
    fake_run(runs, f"{family}-bbbbbb", **{"model.lr": 0.01, "model.dropout": 0.2})  # the latest
    with pytest.raises(RunFolderError) as error:
        find_resumable(runs, f"{family}-cccccc", {**near, "model.lr": 0.003}, family)
    assert f"the nearest, {runs / f'{family}-aaaaaa'}, was trained with another configuration: model.lr=0.003 (the " \
        "run has 0.001); " in str(error.value)


def test_fit_resumed_with_other_heads_names_the_run(data_dir, cli_env, capsys):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=1", "--model.n_heads=2"]
    main(args)
    (run_dir,) = (cli_env / "runs").iterdir()
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--model.n_heads=4", "--model.lr=0.01", "--ckpt_path=last"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert f"the nearest, runs/{run_dir.name}, was trained with another configuration: " in err
    assert "model.lr=0.01 (the run has " in err and "model.n_heads=4 (the run has 2)" in err
