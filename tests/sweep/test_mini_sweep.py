"""The acceptance test: a real mini-sweep on Tiny Shakespeare through ``python -m zoo sweep``, two at once.

A 2x2 grid (positional encoding x norm) over 2 seeds of a tiny model for a few steps. One trial is made to
fail (a corrupt ``last.ckpt`` in its run folder, which the runner resumes from); the others finish, each with
a run record that carries the sweep as its group and the varied knobs as its job type. A second run skips
every finished trial and retries the failed one.
"""

import json
import os
import re
import statistics
import subprocess
import sys

import pytest
import yaml

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL
from zoo.compare.command import main as compare_main
from zoo.sweep.main import main as sweep_main

PARAMETERS = {
    "model.pe": {"values": ["learned", "rope"]},
    "model.norm": {"values": ["layernorm", "rmsnorm"]},
    "seed_everything": {"values": [1, 2]},
}
TRIALS = [
    f"mini-{pe}-{norm}-s{seed}" for pe in ("learned", "rope") for norm in ("layernorm", "rmsnorm") for seed in (1, 2)
]
BROKEN = "mini-rope-rmsnorm-s2"
BUDGET = "--trainer.max_steps=6"


def write_sweep(tmp_path, parameters) -> None:
    config = {
        "name": "mini",
        "command": [
            "${env}",
            "${interpreter}",
            "-m",
            "zoo",
            "fit",
            "--config",
            str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"),
            BUDGET,  # the file's own budget: one after -- would make another sweep, mini-8steps
            "${args}",
        ],
        "method": "grid",
        "metric": {"name": "val_loss", "goal": "minimize"},
        "parameters": parameters,
    }
    (tmp_path / "mini.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def arguments(data_dir, more, options) -> list[str]:
    steps = [argument for argument in FEW_STEPS if argument != BUDGET]
    extra = [f"--data.path={data_dir / 'tinyshakespeare'}", *TINY_MODEL, "--model.num_layers=1", *steps, *more]
    return ["mini.yaml", "--parallel", "2", *options, "--", *extra]


def sweep(tmp_path, data_dir, zoo_cache, *more: str, parameters=PARAMETERS, options=()) -> subprocess.CompletedProcess:
    """``python -m zoo sweep`` in a fresh process, as a user runs it."""
    write_sweep(tmp_path, parameters)
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache)}
    env.pop("ZOO_RUN_DIR", None)
    command = [sys.executable, "-m", "zoo", "sweep", *arguments(data_dir, more, options)]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture
def checked(tmp_path, data_dir, zoo_cache, monkeypatch, capsys):
    """The sweep command in this process, for the sweeps that run no trial (refused, or dry runs): the same
    checks, without a process's start-up."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZOO_CACHE", str(zoo_cache))

    def run(*more: str, parameters=PARAMETERS, options=()) -> subprocess.CompletedProcess:
        write_sweep(tmp_path, parameters)
        capsys.readouterr()
        code = sweep_main(arguments(data_dir, more, options))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess("zoo sweep", code, out, err)

    return run


def check_statistics_against_scipy(table: dict, runs) -> None:
    """Each variation's interval, Holm-adjusted p and minimum detectable effect equal scipy's on the real run
    records (the best val_loss of each seed, from its summary.json)."""
    from scipy import stats

    from zoo.compare.statistics import minimum_detectable_effect

    def best(row):
        return [
            json.loads((runs / name / "summary.json").read_text())["best"]["val_loss"]["value"] for name in row["runs"]
        ]

    base, *variations = table["rows"]
    tests = [stats.ttest_ind(best(row), best(base), equal_var=False) for row in variations]
    p = [test.pvalue for test in tests]
    order = sorted(range(len(p)), key=p.__getitem__)
    holm, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = holm[i] = max(running, min(1.0, (len(p) - rank) * p[i]))
    for row, test, adjusted in zip(variations, tests, holm, strict=True):
        assert (row["delta_ci_low"], row["delta_ci_high"]) == pytest.approx(tuple(test.confidence_interval()), rel=1e-9)
        assert (row["p_value"], row["p_adjusted"]) == pytest.approx((test.pvalue, adjusted), rel=1e-9)
        spreads = (statistics.stdev(best(base)), 2, statistics.stdev(best(row)), 2)
        assert row["mde"] == pytest.approx(minimum_detectable_effect(*spreads, 0.05 / len(p)), rel=1e-9)


def events(output: str) -> dict:
    """Trial name -> the events printed for it, in order (start, done, FAIL, skip)."""
    found = {}
    for event, name in re.findall(r"\b(start|done|FAIL|skip|stop) +(\S+)", output):
        found.setdefault(name, []).append(event)
    return found


@pytest.mark.slow
def test_mini_sweep_runs_groups_skips_and_retries(tmp_path, data_dir, zoo_cache, checked, capsys):
    runs = tmp_path / "runs"
    (runs / BROKEN / "checkpoints").mkdir(parents=True)
    (runs / BROKEN / "checkpoints" / "last.ckpt").write_bytes(b"not a checkpoint")

    first = sweep(tmp_path, data_dir, zoo_cache)
    assert first.returncode == 1, first.stdout + first.stderr
    seen = events(first.stdout)
    assert {name: seen.get(name) for name in TRIALS} == {
        name: ["start", "FAIL" if name == BROKEN else "done"] for name in TRIALS
    }, first.stdout
    state = json.loads((runs / "mini" / "sweep.json").read_text())
    assert {name: entry["status"] for name, entry in state["trials"].items()} == {
        name: "failed" if name == BROKEN else "finished" for name in TRIALS
    }
    failed = state["trials"][BROKEN]
    assert failed["exit_code"] != 0 and "error" in (tmp_path / failed["log"]).read_text().lower()
    for name in TRIALS:
        if name == BROKEN:
            continue
        summary = json.loads((runs / name / "summary.json").read_text())
        config = json.loads((runs / name / "config.json").read_text())
        pe, norm, seed = name.split("-")[1:]
        assert (summary["status"], summary["group"], summary["job_type"]) == (
            "finished",
            "mini",
            f"pe={pe},norm={norm}",
        )
        assert (config["model.pe"], config["model.norm"], config["seed_everything"]) == (pe, norm, int(seed[1:]))
        assert state["trials"][name]["metric"]["value"] == summary["best"]["val_loss"]["value"]
        assert state["trials"][name]["exit_code"] == 0
    before = {path.name for path in runs.iterdir()}
    summaries = {name: (runs / name / "summary.json").read_text() for name in TRIALS if name != BROKEN}

    (runs / BROKEN / "checkpoints" / "last.ckpt").unlink()  # repair the broken trial: the rerun starts it afresh
    second = sweep(tmp_path, data_dir, zoo_cache)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Compare them: python -m zoo compare mini\n" in second.stdout
    seen = events(second.stdout)
    assert {name: seen.get(name) for name in TRIALS} == {
        name: ["start", "done"] if name == BROKEN else ["skip"] for name in TRIALS
    }, second.stdout
    assert {path.name for path in runs.iterdir()} == set(before)  # no new run folders
    assert {name: (runs / name / "summary.json").read_text() for name in summaries} == summaries
    assert json.loads((runs / BROKEN / "summary.json").read_text())["status"] == "finished"
    assert len(list((runs / "mini" / "attempts").iterdir())) == 1  # the failed attempt's folder, set aside

    capsys.readouterr()
    assert compare_main(["mini", "--format", "json"]) == 0  # in runs/ of the current folder, tmp_path
    table = json.loads(capsys.readouterr().out)
    assert set(table["knobs"]) == {"model.pe", "model.norm"} and len(table["rows"]) == 4
    for row in table["rows"]:  # the table's numbers are what the run records hold
        records = [json.loads((runs / name / "summary.json").read_text()) for name in row["runs"]]
        best = [record["best"]["val_loss"]["value"] for record in records]
        assert row["n"] == 2 == len(best)
        assert row["val_loss_best_mean"] == pytest.approx(statistics.mean(best), abs=1e-12)
        assert row["val_loss_best_std"] == pytest.approx(statistics.stdev(best), abs=1e-12)
        assert row["wall_time_s_mean"] == pytest.approx(statistics.mean(r["wall_time_s"] for r in records))
        assert {name.split("-")[1] for name in row["runs"]} == {row["model.pe"]}
    check_statistics_against_scipy(table, runs)

    # another budget after -- is a sweep of its own beside this one (a smoke run, then the full sweep), with its
    # own trials and state; another width or another sweep file of the same name is refused before any trial, as
    # its trials would share a table with these
    longer = checked("--trainer.max_steps=8", options=["--dry-run"])
    assert longer.returncode == 0, longer.stdout + longer.stderr
    assert longer.stdout.startswith("sweep mini-8steps: the training budget after -- makes it a sweep of its own, ")
    listed = dict(re.findall(r"^ +\d+ (\S+)  \((.+)\)$", longer.stdout, re.M))
    assert listed == {name.replace("mini-", "mini-8steps-"): "to run" for name in TRIALS}, longer.stdout
    where = os.path.join("runs", "mini", "sweep.json")
    changed = checked("--model.d_ff=32")
    assert changed.returncode == 2, changed.stdout + changed.stderr
    assert f"sweep 'mini' in {where} was run with another definition: model.d_ff=32 (the sweep has " in changed.stderr
    assert "give this one another name (name: in its file) or pass another --runs_dir" in changed.stderr
    other = checked(parameters={"model.pe": {"values": ["sinusoidal"]}})
    assert other.returncode == 2
    assert "another definition: parameters.model.norm=unset (the sweep has {'values': ['layernorm', " in other.stderr
    assert "parameters.model.pe" not in other.stderr  # another list of values is the same experiment, extended
    assert {path.name for path in runs.iterdir()} == set(before)  # nothing ran
    # the same grid reordered, with a third seed and an extra argument spelt another way: accepted, and only the
    # new seed's trials are to run
    extended = {**PARAMETERS, "model.pe": {"values": ["rope", "learned"]}, "seed_everything": {"values": [1, 2, 3]}}
    more = checked("--trainer.limit_train_batches=1.0", parameters=extended, options=["--dry-run"])
    assert more.returncode == 0, more.stdout + more.stderr
    listed = dict(re.findall(r"^ +\d+ (\S+)  \((.+)\)$", more.stdout, re.M))
    assert listed == {name: "finished: skipped" for name in TRIALS} | {
        f"mini-{pe}-{norm}-s3": "to run" for pe in ("learned", "rope") for norm in ("layernorm", "rmsnorm")
    }, more.stdout

    # a sweep recorded without its definition: each finished trial is still checked against its record
    state = json.loads((runs / "mini" / "sweep.json").read_text())
    del state["definition"]
    (runs / "mini" / "sweep.json").write_text(json.dumps(state))
    changed = checked("--model.d_ff=32")
    assert changed.returncode == 2
    assert "finished earlier with another configuration than this sweep would run: model.d_ff=32 (the run " in (
        changed.stderr
    )
