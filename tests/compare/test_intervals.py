"""Each row's Δ has a ``1 - alpha`` interval: Welch's t, equal to scipy's, or a percentile bootstrap over seeds,
equal to a naive loop over the same resamples; the report draws them as a forest plot."""

import json

import numpy as np
import pytest
from scipy import stats

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.test_report import plotly_figures
from zoo.compare.statistics import BOOTSTRAP_RESAMPLES, bootstrap_interval, welch

BASE, VARIATION = [s[0] for s in SINUSOIDAL], [s[0] for s in ROPE]


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_welch_interval_is_scipys(runs_dir, compare_json, alpha):
    rope = compare_json(runs_dir, "--alpha", alpha)["rows"][1]
    result = stats.ttest_ind(VARIATION, BASE, equal_var=False)
    low, high = result.confidence_interval(confidence_level=1 - alpha)
    assert (rope["delta_ci_low"], rope["delta_ci_high"]) == pytest.approx((low, high), rel=1e-12)
    assert rope["df"] == pytest.approx(result.df, rel=1e-12)
    # by hand: delta ± t_{1-alpha/2, df} se
    half = stats.t.ppf(1 - alpha / 2, rope["df"]) * rope["delta_se"]
    assert (rope["delta_ci_low"], rope["delta_ci_high"]) == pytest.approx(
        (rope["delta"] - half, rope["delta"] + half), rel=1e-12
    )


def test_uneven_arms_and_no_test_have_their_intervals(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", [*ROPE, (31.0, 31.0, (1000.0,), 50.0)])  # four seeds against three
    write_config(runs, "learned", ROPE[:1])  # one seed: no test, no interval
    result = compare_json(runs, "--baseline", "pe=sinusoidal")
    assert result["confidence_level"] == 0.95 and result["interval"] == "welch"
    base, rope, learned = (next(r for r in result["rows"] if r["model.pe"] == pe) for pe in ("sinusoidal", "rope",
                                                                                           "learned"))  # fmt: skip
    low, high = stats.ttest_ind([*VARIATION, 31.0], BASE, equal_var=False).confidence_interval()
    assert (rope["delta_ci_low"], rope["delta_ci_high"]) == pytest.approx((low, high), rel=1e-12)
    assert (base["delta_ci_low"], learned["delta_ci_low"], learned["delta_ci_high"]) == (None, None, None)


def naive_bootstrap(baseline, variation, alpha, resamples=BOOTSTRAP_RESAMPLES, seed=0):
    """One resample at a time, in plain Python: the generator draws the variation's indices, then the
    baseline's (the order scipy.stats.bootstrap draws its samples in)."""
    rng = np.random.default_rng(seed)
    pick_v = rng.integers(0, len(variation), (resamples, len(variation)))
    pick_b = rng.integers(0, len(baseline), (resamples, len(baseline)))
    deltas = []
    for k in range(resamples):
        mean_v = sum(variation[i] for i in pick_v[k]) / len(variation)
        mean_b = sum(baseline[i] for i in pick_b[k]) / len(baseline)
        deltas.append(mean_v - mean_b)
    return tuple(np.percentile(deltas, [100 * alpha / 2, 100 * (1 - alpha / 2)]))


def test_bootstrap_equals_a_naive_loop_and_is_deterministic():
    baseline, variation = [1.0, 2.5, 2.0], [3.0, 2.0, 4.5, 3.5]
    interval = bootstrap_interval(baseline, variation, 0.05)
    assert interval == pytest.approx(naive_bootstrap(baseline, variation, 0.05), rel=1e-12)
    assert bootstrap_interval(baseline, variation, 0.05) == interval  # a fixed generator: the same every time
    assert bootstrap_interval(baseline, variation, 0.1) == pytest.approx(naive_bootstrap(baseline, variation, 0.1))
    # the bootstrap distribution is discrete: its quantiles are differences of resampled means, within the
    # extremes (min of one arm minus max of the other)
    assert -1.5 + 1 / 4 <= interval[0] < interval[1] <= 4.5 - 1.0
    assert BOOTSTRAP_RESAMPLES >= 10_000


def test_ci_bootstrap_sets_the_interval_not_the_test(runs_dir, compare_json, compare):
    welch_rope = compare_json(runs_dir)["rows"][1]
    result = compare_json(runs_dir, "--ci", "bootstrap")
    rope = result["rows"][1]
    assert result["interval"] == "bootstrap"
    assert (rope["delta_ci_low"], rope["delta_ci_high"]) == pytest.approx(naive_bootstrap(BASE, VARIATION, 0.05))
    assert (rope["p_value"], rope["delta"]) == (welch_rope["p_value"], welch_rope["delta"])  # Welch's p still
    status, out, _ = compare(runs_dir, "--ci", "bootstrap", "--format", "markdown")
    assert status == 0 and "percentile bootstrap of the difference of means" in out
    assert welch(BASE, VARIATION, interval="bootstrap").interval == "bootstrap"


def test_every_format_shows_the_interval(runs_dir, compare, compare_json, tmp_path):
    rope = compare_json(runs_dir)["rows"][1]
    shown = f"{rope['delta']:+.2f} [{rope['delta_ci_low']:+.2f}, {rope['delta_ci_high']:+.2f}]"
    for fmt in ("table", "markdown"):
        status, out, _ = compare(runs_dir, "--format", fmt)
        assert status == 0 and shown in out and "Δ best [95% CI]" in out
        assert "its 95% confidence interval: Welch's t" in out and "not adjusted for the table's other rows" in out
    status, out, _ = compare(runs_dir, "--format", "csv")
    header, _, line = out.splitlines()
    assert "delta_ci_low" in header.split(",") and f"{rope['delta_ci_low']!r}" in line
    report = tmp_path / "r.html"
    assert compare(runs_dir, "--report", report)[0] == 0
    assert f"<td>{shown}</td>" in report.read_text()


def test_report_has_a_forest_plot_of_the_intervals(runs_dir, compare, compare_json, tmp_path):
    rope = compare_json(runs_dir)["rows"][1]
    report = tmp_path / "r.html"
    assert compare(runs_dir, "--report", report)[0] == 0
    page = report.read_text()
    (forest,) = plotly_figures(page)[:1]
    (trace,) = forest
    assert trace["y"] == ["pe=rope"] and trace["x"] == pytest.approx([rope["delta"]])
    assert trace["error_x"]["array"] == pytest.approx([rope["delta_ci_high"] - rope["delta"]])
    assert trace["error_x"]["arrayminus"] == pytest.approx([rope["delta"] - rope["delta_ci_low"]])
    layout = first_layout(page)
    assert [(shape["type"], shape["x0"], shape["x1"]) for shape in layout["shapes"]] == [("line", 0, 0)]  # zero


def first_layout(page: str) -> dict:
    """The ``layout`` of the first ``Plotly.newPlot(id, data, layout, config)`` call of the page."""
    decoder = json.JSONDecoder()
    start = page.index("[", page.index("Plotly.newPlot("))
    _, end = decoder.raw_decode(page, start)
    return decoder.raw_decode(page, page.index("{", end))[0]
