"""``zoo compare --paired``: the paired t-test and the correlation equal scipy's over the seeds both arms ran;
arms with other seeds are refused in one line; a rerun of a seed is never a second pair."""

import math

import pytest
from scipy import stats

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.fake_runs import write_run
from zoo.compare.statistics import paired


def test_paired_p_values_are_adjusted_together_as_holm_by_hand(runs_dir, compare, compare_json):
    # a third arm closer to the baseline: two paired p-values in one family
    write_config(runs_dir, "alibi", [(30.2, 30.0, (1.0, 1.0), 1.0), (31.5, 31.0, (1.0, 1.0), 1.0),
                                     (32.6, 32.0, (1.0, 1.0), 1.0)])  # fmt: skip
    base = [best for best, *_ in SINUSOIDAL]
    arms = {"rope": [best for best, *_ in ROPE], "alibi": [30.2, 31.5, 32.6]}
    p = {arm: float(stats.ttest_rel(values, base).pvalue) for arm, values in arms.items()}
    small, large = sorted(p, key=p.get)
    holm = {small: min(1.0, 2 * p[small])}
    holm[large] = max(holm[small], min(1.0, p[large]))  # step-down: times m, then m - 1, non-decreasing
    result = compare_json(runs_dir, "--paired", "--baseline", "pe=sinusoidal")
    rows = {row["model.pe"]: row for row in result["paired"]["rows"]}
    assert result["paired"]["correction"] == "holm"
    for arm in arms:
        assert rows[arm]["p"] == pytest.approx(p[arm], rel=1e-12)
        assert rows[arm]["p_adjusted"] == pytest.approx(holm[arm], rel=1e-12)
        assert rows[arm]["verdict"] == ("beyond noise" if holm[arm] < 0.05 else "within noise")
    none = compare_json(runs_dir, "--paired", "--baseline", "pe=sinusoidal", "--correction", "none")
    assert [row["p_adjusted"] for row in none["paired"]["rows"]] == [row["p"] for row in none["paired"]["rows"]]
    status, out, _ = compare(runs_dir, "--paired", "--baseline", "pe=sinusoidal")
    assert status == 0 and "|" not in out.split("paired t-test")[1]  # a rich table, not Markdown
    assert "Holm p: the paired p-values adjusted together for the table's 2 variations" in " ".join(out.split())
    paired_part = out.split("paired t-test")[1]
    assert f"{holm['rope']:.3g}" in paired_part and "alpha 0.05; Holm p" in paired_part
    rope = next(line for line in paired_part.splitlines() if line.startswith("rope "))
    assert rope.endswith("better than base, beyond noise")  # the terminal's short verdict, with its direction


def test_paired_equals_scipy_on_made_up_values():
    baseline, variation = [30.0, 31.0, 32.5, 29.0], [30.8, 31.6, 33.4, 29.7]
    result = paired(baseline, variation)
    assert result.n == 4
    assert result.delta == pytest.approx(sum(variation) / 4 - sum(baseline) / 4, abs=1e-12)
    assert result.p == pytest.approx(float(stats.ttest_rel(variation, baseline).pvalue), rel=1e-12)
    assert result.correlation == pytest.approx(float(stats.pearsonr(baseline, variation).statistic), rel=1e-12)
    # the same values unpaired: Welch's p is far larger, as the seed spread the pairs share no longer cancels
    assert result.p < 0.05 < float(stats.ttest_ind(variation, baseline, equal_var=False).pvalue)
    assert result.verdict == "beyond noise"


def test_paired_verdicts_where_no_test_applies():
    assert paired([1.0], [2.0]).verdict == "n too small"
    same = paired([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])  # every difference 0.5
    assert (same.verdict, same.p, same.sd, same.correlation) == ("no seed variance", None, 0.0, pytest.approx(1.0))
    assert paired([1.0, 2.0], [1.5, 3.0]).correlation is None  # two points are always on a line
    assert paired([1.0, 2.0], [math.inf, 3.0]).verdict == "not finite"


def test_paired_over_real_records_equals_scipy(runs_dir, compare, compare_json):
    result = compare_json(runs_dir, "--paired", "--baseline", "pe=sinusoidal")
    (row,) = result["paired"]["rows"]
    base, rope = [best for best, *_ in SINUSOIDAL], [best for best, *_ in ROPE]  # seeds 1, 2, 3 in order
    assert row["model.pe"] == "rope" and row["n"] == 3
    assert row["p"] == pytest.approx(float(stats.ttest_rel(rope, base).pvalue), rel=1e-12)
    assert row["correlation"] == pytest.approx(float(stats.pearsonr(base, rope).statistic), rel=1e-12)
    assert result["rows"][1]["p_value"] != row["p"]  # the unpaired row is Welch's, as without --paired
    status, out, _ = compare(runs_dir, "--paired", "--baseline", "pe=sinusoidal", "--format", "markdown")
    assert status == 0 and "paired t-test (two-sided)" in out
    assert "| pe | n | Δ best | sd of Δ | paired p | Holm p | r | verdict |" in out  # the Welch table's knob name
    assert "| rope | 3 | +3.17 | 0.29 |" in out  # differences 3, 3, 3.5, with the Welch table's decimals


def test_a_rerun_of_a_seed_is_no_second_pair(runs_dir, compare_json):
    write_run(runs_dir, "ed-rope-s1-2", [(200, 90.0)], knobs={"model.pe": "rope"}, seed=1)  # `fit` run again
    result = compare_json(runs_dir, "--paired", "--baseline", "pe=sinusoidal")
    assert result["paired"]["rows"][0]["n"] == 3
    base, rope = [best for best, *_ in SINUSOIDAL], [best for best, *_ in ROPE]
    assert result["paired"]["rows"][0]["p"] == pytest.approx(float(stats.ttest_rel(rope, base).pvalue), rel=1e-12)
    assert {"run": "ed-rope-s1-2", "reason": "rerun of the seed of ed-rope-s1"} in result["excluded"]


def test_arms_with_other_seeds_are_refused_in_one_line(tmp_path, compare):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE[:2])
    write_run(runs, "ed-rope-s7", [(200, 33.0)], knobs={"model.pe": "rope"}, seed=7)
    status, out, err = compare(runs, "--paired", "--baseline", "pe=sinusoidal")
    assert status == 2 and out == ""
    assert err == (
        "zoo compare: error: --paired needs the baseline's seeds in every variation: model.pe=rope lacks "
        "seed_everything=3; the baseline lacks seed_everything=7\n"
    )
    status, _, err = compare(runs, "--paired", "--format", "csv")
    assert status == 2 and "--paired is not written as CSV" in err
