"""One sweep, one definition: what may change between two runs of a sweep (the values of a grid or random
search, the spelling of a setting) and what may not (the base configuration, the budget, a fixed value, the
search), on definitions as :func:`zoo.sweep.definition_changes.sweep_definition` records them."""

import json

import pytest

from zoo.sweep.definition_changes import definition_changes, extended
from zoo.sweep.spec import SweepError, expand, load_sweep
from zoo.sweep.state import SweepState

BASE = {"model.lr": 0.001, "trainer.max_steps": 6, "data.path": "/data/shakespeare"}


def definition(parameters: dict, method: str = "grid", **base) -> dict:
    return {
        "method": method,
        "metric": {"name": "val_loss", "goal": "minimize"},
        "parameters": parameters,
        "base": {**BASE, **base},
    }


GRID = {"model.pe": {"values": ["learned", "rope"]}, "seed_everything": {"values": [1, 2]}}


def test_a_grid_may_be_reordered_extended_or_narrowed_and_records_every_value():
    then = definition(GRID)
    more = definition({"model.pe": {"values": ["rope", "alibi", "learned"]}, "seed_everything": {"values": [3, 1]}})
    assert definition_changes(then, more) == []
    assert extended(then, more)["parameters"] == {
        "model.pe": {"values": ["learned", "rope", "alibi"]},
        "seed_everything": {"values": [1, 2, 3]},
    }
    assert extended(None, more) == more and extended(then, then) == then


@pytest.mark.parametrize(
    ("parameters", "method", "expected"),
    [
        ({**GRID, "model.norm": {"value": "rmsnorm"}}, "grid", "parameters.model.norm={'value': 'rmsnorm'} (the sweep "
         "has unset)"),
        ({"model.pe": {"values": ["learned", "rope"]}}, "grid", "parameters.seed_everything=unset (the sweep has "),
        (GRID, "random", "method='random' (the sweep has 'grid')"),
    ],
)  # fmt: skip
def test_a_new_parameter_another_fixed_value_or_another_search_is_another_sweep(parameters, method, expected):
    changes = definition_changes(definition(GRID), definition(parameters, method))
    assert changes and changes[0].startswith(expected), changes


def test_a_fixed_value_or_a_distribution_may_not_change():
    fixed = {**GRID, "model.d_model": {"value": 64}}
    assert definition_changes(definition(fixed), definition({**GRID, "model.d_model": {"value": 32}})) == [
        "parameters.model.d_model={'value': 32} (the sweep has {'value': 64})"
    ]
    lr = {"model.lr": {"distribution": "log_uniform_values", "min": 1e-4, "max": 1e-2}}
    wider = {"model.lr": {"distribution": "log_uniform_values", "min": 1e-5, "max": 1e-2}}
    assert len(definition_changes(definition(lr, "random"), definition(wider, "random"))) == 1


def test_bayes_values_may_not_change():
    """Bayesian search proposes each trial from the results so far: its space is the experiment."""
    then, now = definition(GRID, "bayes"), definition({**GRID, "seed_everything": {"values": [1, 2, 3]}}, "bayes")
    assert definition_changes(then, now) == [
        "parameters.seed_everything={'values': [1, 2, 3]} (the sweep has {'values': [1, 2]})"
    ]
    assert extended(then, now) == now


def test_spellings_of_one_setting_are_one_base_and_defaults_are_shown_as_values():
    then = definition(GRID)
    same = definition(GRID, **{"trainer.limit_train_batches": 1.0, "data.path": "/data/shakespeare/"})
    assert definition_changes(then, same) == []
    assert definition_changes(then, definition(GRID, **{"trainer.limit_train_batches": 1})) == [
        "trainer.limit_train_batches=1 (the sweep has 1.0)"
    ]
    assert definition_changes(then, definition(GRID, **{"model.bias": False, "trainer.precision": "bf16"})) == [
        "model.bias=false (the sweep has true)",
        "trainer.precision='bf16-mixed' (the sweep has '32-true')",
    ]
    assert definition_changes(then, definition(GRID, **{"trainer.max_steps": 8})) == [
        "trainer.max_steps=8 (the sweep has 6)"
    ]


def test_yaml_floats_without_a_dot_are_floats(tmp_path):
    """PyYAML reads ``1e-4`` as a string, which ran ``[1e-4, 0.0001]`` as two trials of one learning rate."""
    path = tmp_path / "lr.yaml"
    path.write_text("name: lr\nmethod: grid\nparameters:\n  model.lr: {values: [1e-4, 3E-4, '1e-3']}\n")
    config = load_sweep(path)
    assert config["parameters"]["model.lr"]["values"] == [0.0001, 0.0003, "1e-3"]
    assert [trial.name for trial in expand(config)] == ["lr-lr0.0001", "lr-lr0.0003", "lr-1e-3"]
    path.write_text("name: lr\nmethod: grid\nparameters:\n  model.lr: {values: [1.0e+30, 1.0e-30]}\n")
    assert [trial.name for trial in expand(load_sweep(path))] == ["lr-lr1e30", "lr-lr1e-30"]  # were both lr1e_30
    path.write_text("name: lr\nmethod: grid\nparameters:\n  model.lr: {values: [1e-4, 0.0001]}\n")
    with pytest.raises(SweepError, match=r"parameters.model.lr.values lists 0.0001 twice"):
        load_sweep(path)  # one number: it was one trial, silently


@pytest.mark.parametrize("content", ["{not json", "[]", '{"name": "x"}'])
def test_a_corrupt_sweep_state_is_one_line(tmp_path, content):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "sweep.json").write_text(content)
    with pytest.raises(SweepError) as error:
        SweepState(tmp_path, "x")
    message = str(error.value)
    assert message.startswith(f"{tmp_path / 'x' / 'sweep.json'} is not a sweep's state (") and "\n" not in message
    assert "move the file aside" in message and json.loads(json.dumps(message))


def test_a_narrowed_grid_names_its_trials_as_the_recorded_one():
    """``lr: [1e-3, 1e-4]`` narrowed to ``[1e-3]``: its trial keeps the name it had (``lr0.001`` in it), so
    the finished one is found, not run again as ``s-s1``."""
    recorded = definition({"model.lr": {"values": [1e-3, 1e-4]}, "seed_everything": {"values": [1]}})
    narrowed = {"name": "s", "method": "grid", "parameters": {"model.lr": {"values": [1e-3]},
                                                             "seed_everything": {"values": [1]}}}  # fmt: skip
    record = extended(recorded, definition(narrowed["parameters"]))
    assert definition_changes(recorded, definition(narrowed["parameters"])) == []
    names = {**narrowed, "parameters": record["parameters"]}
    assert [trial.name for trial in expand(narrowed, names=names)] == ["s-lr0.001-s1"]
    assert [trial.name for trial in expand(narrowed)] == ["s-s1"]  # what the file alone would name it


def test_a_parameter_with_one_value_may_not_get_more_but_the_seed_may():
    then = definition({"model.lr": {"values": [1e-3]}, "seed_everything": {"values": [1]}})
    more_seeds = definition({"model.lr": {"values": [1e-3]}, "seed_everything": {"values": [1, 2, 3]}})
    assert definition_changes(then, more_seeds) == []
    more_lr = definition({"model.lr": {"values": [1e-3, 1e-4]}, "seed_everything": {"values": [1]}})
    assert definition_changes(then, more_lr) == ["parameters.model.lr={'values': [0.001, 0.0001]} (the sweep has "
                                                 "{'values': [0.001]})"]  # fmt: skip


def test_entries_left_running_by_a_killed_sweep_take_their_records_status(tmp_path):
    from zoo.sweep.execution import _close_stale_entries

    state = SweepState(tmp_path, "x")
    for name, recorded in (("x-a", "interrupted"), ("x-b", "running"), ("x-c", None)):
        state.update(name, status="running", params={})
        if recorded:
            (tmp_path / name).mkdir()
            (tmp_path / name / "summary.json").write_text(json.dumps({"status": recorded}))
    _close_stale_entries(state, tmp_path)
    assert {name: entry["status"] for name, entry in state.trials.items()} == {
        "x-a": "interrupted",
        "x-b": "running",  # its record says running too: maybe another sweep runs it now
        "x-c": "running",
    }


def test_dry_run_says_which_trials_continue_from_their_last_checkpoint(tmp_path, capsys, monkeypatch):
    from tests.conftest import REPO
    from zoo.sweep import main

    monkeypatch.chdir(REPO)
    sweep = tmp_path / "lbl.yaml"
    sweep.write_text(
        "name: lbl\nmethod: grid\nmetric: {name: val_loss, goal: minimize}\n"
        "command: ['${env}', '${interpreter}', -m, zoo, fit, --config, configs/decoder_only/tinyshakespeare.yaml, "
        "'${args}']\nparameters:\n  model.pe: {values: [learned, rope]}\n  seed_everything: {values: [1]}\n"
    )
    (tmp_path / "runs" / "lbl-rope-s1" / "checkpoints").mkdir(parents=True)
    (tmp_path / "runs" / "lbl-rope-s1" / "checkpoints" / "last.ckpt").write_bytes(b"")
    assert main([str(sweep), "--runs_dir", str(tmp_path / "runs"), "--dry-run", "--", "--data.path=."]) == 0
    out = capsys.readouterr().out
    assert "lbl-learned-s1  (to run)" in out and "lbl-rope-s1  (to continue from its last.ckpt)" in out


def test_a_categorical_distribution_is_what_a_list_of_values_means():
    plain = definition({"model.pe": {"values": ["learned", "rope"]}})
    spelt = definition({"model.pe": {"distribution": "categorical", "values": ["rope", "learned"]}})
    assert definition_changes(plain, spelt) == [] == definition_changes(spelt, plain)


def test_value_and_a_one_value_list_are_one_spelling_and_the_seed_may_grow_from_either():
    """`value: 1` is `values: [1]`: extending the seed to more values was refused when the file said `value`
    (docs/sweeps.md says the seed may grow). Another single value of a knob is still another sweep: the record
    would list both, and the trials' names (which leave out a fixed knob) would change."""
    then = definition({"model.pe": {"values": ["learned", "rope"]}, "seed_everything": {"value": 1}})
    more = definition({"model.pe": {"values": ["learned", "rope"]}, "seed_everything": {"values": [1, 2]}})
    assert definition_changes(then, more) == []
    assert extended(then, more)["parameters"]["seed_everything"] == {"values": [1, 2]}
    spelt = definition({"model.pe": {"values": ["learned", "rope"]}, "seed_everything": {"values": [1]}})
    assert definition_changes(then, spelt) == definition_changes(spelt, then) == []
    width = definition({**GRID, "model.d_model": {"values": [64]}})
    assert definition_changes(width, definition({**GRID, "model.d_model": {"values": [32]}})) == [
        "parameters.model.d_model={'values': [32]} (the sweep has {'values': [64]})"
    ]


def write_lbl_sweep(tmp_path):
    sweep = tmp_path / "lbl.yaml"
    sweep.write_text(
        "name: lbl\nmethod: grid\nmetric: {name: val_loss, goal: minimize}\n"
        "command: ['${env}', '${interpreter}', -m, zoo, fit, --config, configs/decoder_only/tinyshakespeare.yaml, "
        "'${args}']\nparameters:\n  model.pe: {values: [learned, rope]}\n  seed_everything: {values: [1]}\n"
    )
    return sweep


def test_a_budget_after_dashes_is_a_sweep_of_its_own(tmp_path, capsys, monkeypatch):
    """A 300-step trial run of a sweep and the sweep at its full budget blocked each other in one runs folder."""
    from tests.conftest import REPO
    from zoo.sweep import main

    monkeypatch.chdir(REPO)
    sweep, runs = write_lbl_sweep(tmp_path), tmp_path / "runs"
    SweepState(runs, "lbl").describe(definition=definition(GRID, **{"trainer.max_steps": 4000}))  # the full one
    smoke = ["--", "--data.path=.", "--trainer.max_steps", "300"]
    assert main([str(sweep), "--runs_dir", str(runs), "--dry-run", *smoke]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "sweep lbl-300steps: the training budget after -- makes it a sweep of its own, beside lbl (the sweep at "
        "its config's budget: leave the budget out)"
    )
    assert "sweep lbl-300steps (grid): 2 trials" in out and "lbl-300steps-rope-s1  (to run)" in out


def test_the_name_of_a_budget():
    from zoo.sweep.command import budget_name

    base = {"trainer.max_steps": 300, "trainer.max_epochs": 2, "trainer.max_time": "00:01:30:00"}
    assert budget_name("do-pe", ["--data.path=x"], base) == "do-pe"  # no budget after --: the file's own
    assert budget_name("do-pe", ["--trainer.max_steps=300"], base) == "do-pe-300steps"
    assert budget_name(
        "do-pe", ["--trainer.max_epochs", "2", "--trainer.max_steps=-1"], {**base, "trainer.max_steps": -1}
    ) == (
        "do-pe-2epochs"  # -1: no limit of steps
    )
    assert budget_name("do-pe", ["--trainer.max_time=00:01:30:00"], base) == "do-pe-time00_01_30_00"
