"""``zoo compare --calibrate``: the A/A calibration of compare's tests on one configuration's seeds (splits,
counts, the expected range) on simulated normal values and on run records; bad input refused in one line."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tests.compare.fake_runs import write_run
from zoo.compare.calibration import (
    binomial_range,
    calibrate,
    simulate,
    split_count,
    splits,
    tally_splits,
)
from zoo.compare.statistics import welch


def _share(tally, *key) -> float:
    return tally.counts[key].share


def test_splits_are_every_partition_once_or_a_fixed_sample():
    every = splits(12, 2, samples=10**6)
    assert len(every) == split_count(12, 2) == 9240 == len(set(every))
    assert split_count(12, 4) == 61600
    drawn = splits(12, 4, samples=500)
    assert drawn == splits(12, 4, samples=500) and len(set(drawn)) == 500
    for split in drawn:  # four disjoint groups of three
        assert len({i for group in split for i in group}) == 12 and all(len(g) == 3 for g in split)
    assert splits(12, 4, samples=500, seed=1) != drawn


def test_welch_is_calibrated_on_normal_values_and_holm_bounds_the_family():
    tally = simulate(400, tests=("welch",))
    # Welch's test at 3 seeds a side is conservative: its true size at alpha 0.05 is 3.5% (scipy on 400,000
    # independent normal tables), and the tally of 400 tables lies in the binomial range around it
    x, y = np.random.default_rng(5).standard_normal((2, 400_000, 3))
    size = float((stats.ttest_ind(x, y, axis=1, equal_var=False).pvalue < 0.05).mean())
    assert 0.033 < size < 0.037
    low, high = binomial_range(size, 400)
    assert low <= _share(tally, "welch", "pair", "none") <= high <= binomial_range(0.05, 400)[1]
    assert simulate(40, tests=("welch",)).counts == simulate(40, tests=("welch",)).counts  # one generator seed
    none, holm = (tally.counts["welch", "family", m].beyond for m in ("none", "holm"))
    bonferroni = tally.counts["welch", "family", "bonferroni"].beyond
    assert bonferroni <= holm <= none and none > holm  # Holm is never below Bonferroni, and corrects something
    assert _share(tally, "welch", "family", "holm") <= binomial_range(0.05, 400)[1]


def test_a_planted_effect_is_found():
    tally = simulate(100, effect=4.0, tests=("welch", "paired"))
    assert _share(tally, "welch", "pair", "none") > 0.7
    assert _share(tally, "paired", "pair", "none") > 0.5 and _share(tally, "paired", "family", "holm") > 0.5


def test_the_bootstrap_interval_at_three_seeds_is_anti_conservative():
    tally = simulate(150, tests=("bootstrap",))
    assert _share(tally, "bootstrap", "pair", "none") > binomial_range(0.05, 150)[1]


def test_the_tally_is_compare_s_welch_on_each_split():
    values = [float(v) for v in np.random.default_rng(3).normal(30, 1, 12)]
    pairs = splits(12, 2, samples=50)
    tally = tally_splits(values, pairs, [], tests=("welch",))
    direct = sum(welch([values[i] for i in a], [values[i] for i in b]).p < 0.05 for a, b in pairs)
    assert tally.counts["welch", "pair", "none"].beyond == direct and tally.counts["welch", "pair", "none"].total == 50


def _aa_runs(runs_dir, values, **knobs):
    for seed, value in enumerate(values, start=1):
        write_run(runs_dir, f"aa-s{seed}", [(100, value - 5.0), (200, value)], seed=seed, knobs=knobs, group="aa")


def test_the_command_calibrates_the_runs_of_one_configuration(tmp_path, compare_json):
    runs = tmp_path / "runs"
    values = [float(v) for v in np.random.default_rng(1).normal(30, 1, 12)]
    _aa_runs(runs, values)
    out = compare_json("--calibrate", "aa", "--runs_dir", runs, "--splits", 60)
    expected = calibrate(values, samples=60, tests=("welch", "paired"))  # the values in seed order
    rows = {(r["test"], r["split"], r["correction"]): r for r in out["rows"]}
    assert len(rows) == 11 and out["variations"] == 3
    for key, count in expected.counts.items():
        assert (rows[key]["beyond"], rows[key]["splits"]) == (count.beyond, count.total)
    assert rows["welch", "pair", "none"]["range_high"] == binomial_range(0.05, 60)[1]
    # the bootstrap's intervals at three seeds exclude 0 far more often than their level says, Bonferroni or not
    assert rows["bootstrap", "family", "bonferroni"]["reading"] == "above"


def test_simulate_calibrates_on_simulated_tables_without_runs(compare_json):
    out = compare_json("--calibrate", "--simulate", 20)
    rows = {(r["test"], r["split"], r["correction"]): r for r in out["rows"]}
    assert out["simulated"] is True and out["source"].startswith("SIMULATED, no training runs: 20 independent")
    for key, count in simulate(20, tests=("welch",)).counts.items():  # the values do not depend on the tests run
        assert (rows[key]["beyond"], rows[key]["splits"]) == (count.beyond, count.total)


@pytest.mark.parametrize(
    ("seeds", "args", "message"),
    [
        (9, [], "--calibrate needs 12 seeds or more of one configuration"),
        (12, ["--paired"], "--calibrate: --paired does not apply"),
        (12, ["--report"], "--calibrate: --report does not apply"),  # with no name: its default path
        (12, ["--splits", "0"], "--calibrate: --splits=0 is not valid; it must be 1 or more"),
        (12, ["--metric", "val_bleu,val_loss"], "--calibrate takes one metric"),
        (12, ["--simulate", "10"], "--calibrate: --simulate takes no runs"),
        (12, ["--simulate", "0"], "--calibrate: --simulate=0 is not valid"),
    ],
)
def test_bad_input_is_refused_in_one_line(tmp_path, compare, seeds, args, message):
    runs = tmp_path / "runs"
    _aa_runs(runs, [30.0 + 0.1 * i for i in range(seeds)])
    status, out, err = compare("--calibrate", "aa", "--runs_dir", runs, *args)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err


def test_simulate_is_an_option_of_calibrate(compare):
    status, out, err = compare("--simulate", 10)
    assert (status, out) == (2, "") and "--simulate is an option of --calibrate" in err and err.count("\n") == 1


def test_several_configurations_or_a_diverged_seed_are_refused(tmp_path, compare):
    runs = tmp_path / "runs"
    _aa_runs(runs, [30.0 + 0.1 * i for i in range(12)])
    write_run(runs, "rope-s1", [(100, 31.0)], knobs={"model.pe": "rope"}, group="aa")
    status, _, err = compare("--calibrate", "aa", "--runs_dir", runs)
    assert status == 2 and "one configuration; these are 2 configurations (differing in model.pe)" in err
    (runs / "rope-s1").rename(tmp_path / "away")
    write_run(runs, "aa-s13", [(100, math.inf)], seed=13, group="aa")
    status, _, err = compare("--calibrate", "aa", "--runs_dir", runs)
    assert status == 2 and err.count("\n") == 1 and "not finite: aa-s13 (inf)" in err
