"""Trials of grid, random and Bayesian sweeps: names, job types, W&B's macros, reproducible draws."""

import json

from zoo.sweep.command import trial_command
from zoo.sweep.search import PROPOSALS, BayesSource, list_source
from zoo.sweep.spec import expand
from zoo.sweep.state import SweepState

COMMAND = ["${env}", "${interpreter}", "-m", "zoo", "fit", "--config", "c.yaml", "${args}"]


def sweep(method="grid", **parameters) -> dict:
    return {
        "name": "s",
        "method": method,
        "metric": {"name": "val_loss", "goal": "minimize"},
        "command": COMMAND,
        "parameters": parameters,
    }


def test_grid_names_each_trial_by_what_it_varies():
    config = sweep(
        **{
            "model.pe": {"values": ["rope", "none"]},
            "model.n_heads": {"values": [2, 8]},
            "model.d_model": {"value": 64},
            "seed_everything": {"values": [1, 2]},
        }
    )
    trials = expand(config)
    assert len(trials) == 8
    assert sorted(trial.name for trial in trials) == sorted(
        f"s-{pe}-n_heads{h}-s{seed}" for pe in ("rope", "none") for h in (2, 8) for seed in (1, 2)
    )
    trial = next(t for t in trials if t.name == "s-none-n_heads8-s2")
    assert trial.params == {"model.pe": "none", "model.n_heads": 8, "model.d_model": 64, "seed_everything": 2}
    assert trial.job_type == "pe=none,n_heads=8"  # the constant d_model and the seed are not part of it
    assert trial_command(config, trial.params, ["--data.path=d"])[2:] == [
        "-m",
        "zoo",
        "fit",
        "--config",
        "c.yaml",
        "--model.pe=none",
        "--model.n_heads=8",
        "--model.d_model=64",
        "--seed_everything=2",
        "--data.path=d",
    ]


def test_a_sweep_that_varies_nothing_names_its_trial_apart_from_its_own_folder():
    """``runs/<sweep>/`` holds the sweep's state; a trial named as the sweep would share it."""
    (trial,) = expand(sweep(**{"model.norm": {"value": "rmsnorm"}}))
    assert trial.name == "s-trial" and trial.job_type == ""
    (trial,) = expand(sweep(**{"model.norm": {"value": "rmsnorm"}, "seed_everything": {"value": 3}}))
    assert trial.name == "s-s3"


def test_random_search_is_reproducible_with_its_seed():
    config = sweep(
        "random",
        **{
            "model.lr": {"distribution": "log_uniform_values", "min": 1e-4, "max": 1e-2},
            "model.d_ff": {"distribution": "int_uniform", "min": 64, "max": 512},
        },
    )
    first, again, other = expand(config, 5, seed=1), expand(config, 5, seed=1), expand(config, 5, seed=2)
    assert [t.params for t in first] == [t.params for t in again] != [t.params for t in other]
    assert all(1e-4 <= t.params["model.lr"] <= 1e-2 and 64 <= t.params["model.d_ff"] <= 512 for t in first)
    assert all(isinstance(t.params["model.d_ff"], int) for t in first)
    assert first[0].name == f"s-lr{first[0].params['model.lr']:.4g}-d_ff{first[0].params['model.d_ff']}"


def test_bayes_proposes_from_the_run_records_until_the_count(tmp_path):
    config = sweep("bayes", **{"model.lr": {"distribution": "uniform", "min": 0.0, "max": 1.0}})
    state = SweepState(tmp_path, "s")
    for lr in (0.1, 0.5, 0.9):
        run_dir = tmp_path / f"s-lr{lr}"
        run_dir.mkdir()
        (run_dir / "summary.json").write_text(
            json.dumps({"status": "finished", "best": {"val_loss": {"value": lr, "step": 1}}})
        )
        state.update(run_dir.name, params={"model.lr": lr}, status="finished", run_dir=str(run_dir))
    source = BayesSource(config, state, list_source([], 5, 3), count=5, seed=0)
    proposed = [source(), source(), source()]
    assert [number for _, number in proposed[:2]] == ["[4/5]", "[5/5]"] and proposed[2] is None
    for trial, _ in proposed[:2]:
        assert 0.0 <= trial.params["model.lr"] <= 1.0 and state.trials[trial.name]["status"] == "pending"


def test_bayes_never_proposes_an_existing_trial_and_stops_when_its_space_has_no_other(tmp_path):
    """A finite space smaller than the count: the engine proposes the trials that exist (finished, or running
    now) again; none is started twice, and the search ends saying why instead of retrying forever."""
    config = sweep("bayes", **{"model.norm": {"values": ["layernorm", "rmsnorm"]}, "seed_everything": {"value": 1}})
    state = SweepState(tmp_path, "s")
    source = BayesSource(config, state, list_source([], 4, 0), count=4, seed=0)
    first, second = source(), source()  # the second while the first is pending (running)
    assert {first[0].name, second[0].name} == {"s-layernorm-s1", "s-rmsnorm-s1"}
    assert source.exhausted is None
    assert source() is None and len(state.trials) == 2
    assert source.exhausted == (
        f"the Bayesian search proposed only existing trials ({PROPOSALS} in a row): its space holds no other than "
        "the 2 so far, fewer than the 4 asked for"
    )
