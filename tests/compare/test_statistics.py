"""The numbers of ``zoo compare`` equal a naive computation by hand and scipy's Welch test."""

import math

import pytest
from scipy import stats

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from zoo.compare.statistics import spread, welch


def naive_mean_std(values):
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def test_rows_hold_mean_std_and_count_over_seeds(runs_dir, compare_json):
    result = compare_json(runs_dir)
    assert result["metric"] == "val_bleu" and result["value"] == "best"
    base, rope = result["rows"]
    assert (base["model.pe"], base["baseline"], rope["model.pe"]) == ("sinusoidal", True, "rope")
    for row, seeds in ((base, SINUSOIDAL), (rope, ROPE)):
        assert row["n"] == 3
        for column, index in (("val_bleu_best", 0), ("val_bleu_final", 1)):
            mean, std = naive_mean_std([seed[index] for seed in seeds])
            assert row[f"{column}_mean"] == pytest.approx(mean, rel=1e-12)
            assert row[f"{column}_std"] == pytest.approx(std, rel=1e-12)
        assert row["wall_time_s_mean"] == pytest.approx(sum(s[3] for s in seeds) / 3)
        assert row["parameters_mean"] == 24608
    # tokens/s: each run's mean over its logged steps (2000, 3000, 4000), then over seeds
    assert (base["tokens_per_sec_mean"], base["tokens_per_sec_std"]) == pytest.approx((3000.0, 1000.0))
    assert sorted(base["runs"]) == ["ed-sinusoidal-s1", "ed-sinusoidal-s2", "ed-sinusoidal-s3"]


def test_difference_and_welch_p_value_by_hand(runs_dir, compare_json):
    rope = compare_json(runs_dir)["rows"][1]
    a, b = [s[0] for s in SINUSOIDAL], [s[0] for s in ROPE]
    (mean_a, std_a), (mean_b, std_b) = naive_mean_std(a), naive_mean_std(b)
    se = math.sqrt(std_a**2 / 3 + std_b**2 / 3)
    df = se**4 / ((std_a**2 / 3) ** 2 / 2 + (std_b**2 / 3) ** 2 / 2)  # Welch-Satterthwaite
    p = 2 * stats.t.sf(abs(mean_b - mean_a) / se, df)
    assert rope["delta"] == pytest.approx(mean_b - mean_a, rel=1e-12)
    assert rope["delta_se"] == pytest.approx(se, rel=1e-12)
    assert rope["p_value"] == pytest.approx(p, rel=1e-9)
    assert rope["p_value"] == pytest.approx(stats.ttest_ind(b, a, equal_var=False).pvalue, rel=1e-12)
    assert rope["verdict"] == ("beyond noise" if p < 0.05 else "within noise")


def test_final_value_and_alpha_switch_the_test(runs_dir, compare_json):
    rope = compare_json(runs_dir, "--value", "final", "--alpha", "0.001")["rows"][1]
    a, b = [s[1] for s in SINUSOIDAL], [s[1] for s in ROPE]
    p = stats.ttest_ind(b, a, equal_var=False).pvalue
    assert rope["p_value"] == pytest.approx(p, rel=1e-12) and p > 0.001
    assert rope["verdict"] == "within noise"


def test_one_seed_says_n_too_small(tmp_path, compare_json):
    write_config(tmp_path / "runs", "sinusoidal", SINUSOIDAL)
    write_config(tmp_path / "runs", "rope", ROPE[:1])
    base, rope = compare_json(tmp_path / "runs")["rows"]
    assert (rope["n"], rope["val_bleu_best_std"], rope["p_value"], rope["verdict"]) == (1, None, None, "n too small")
    assert rope["delta"] == pytest.approx(33.0 - base["val_bleu_best_mean"])


def test_spread_and_welch_edge_cases():
    assert spread([]) == spread([None])
    assert (spread([]).mean, spread([]).n) == (None, 0)
    same = welch([1.0, 1.0], [2.0, 2.0])
    assert (same.delta, same.p, same.verdict) == (1.0, None, "no seed variance")


@pytest.mark.parametrize("value", [math.inf, math.nan])
def test_a_seed_that_diverged_is_counted_not_dropped(runs_dir, compare, compare_json, value):
    """A seed whose final value is inf or nan left the mean and spread of the other two, while n said 3, and
    Welch's nan p read "within noise": the diverged seed vanished."""
    import json

    summary = runs_dir / "ed-rope-s3" / "summary.json"
    record = json.loads(summary.read_text())
    record["final"]["val_bleu"] = value
    summary.write_text(json.dumps(record))
    rope = compare_json(runs_dir, "--value", "final")["rows"][1]
    assert rope["n"] == 3 and rope["val_bleu_final_std"] is None
    assert math.isinf(rope["val_bleu_final_mean"]) if math.isinf(value) else math.isnan(rope["val_bleu_final_mean"])
    assert (rope["p_value"], rope["verdict"]) == (None, "not finite")
    status, out, _ = compare(runs_dir, "--value", "final", "--format", "markdown")
    assert status == 0 and f"| {value:.2f} |" in out and "| not finite |" in out
    assert "Runs whose val_bleu is not finite (diverged), counted" in out and "ed-rope-s3" in out
    assert spread([1.0, value, None]).n == 2
