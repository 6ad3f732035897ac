"""The report draws what the table says: every spread, band and interval drawn equals the one printed (the sample
standard deviation, n - 1; the interval of Δ), read from the figures' data, and says which it is."""

import statistics

import pytest
from scipy import stats

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from zoo.compare.ablation import compare
from zoo.compare.figures import by_knob, forest, learning_curves
from zoo.compare.records import load_local_runs

BEST = {"sinusoidal": [s[0] for s in SINUSOIDAL], "rope": [s[0] for s in ROPE]}
FINAL = {"sinusoidal": [s[1] for s in SINUSOIDAL], "rope": [s[1] for s in ROPE]}


def comparison(runs_dir, **settings):
    return compare(load_local_runs([str(runs_dir)], runs_dir), **settings)


def test_the_chart_by_knob_draws_the_sample_sd_the_table_prints(runs_dir):
    """plotly's ``boxmean="sd"`` divides by n: at 3 seeds it drew 0.82x the table's sd."""
    figure = by_knob(comparison(runs_dir), "model.pe").to_dict()
    assert not [trace for trace in figure["data"] if trace["type"] == "box"]
    bars = {trace["name"].split(":")[0]: trace for trace in figure["data"] if "error_y" in trace}
    assert set(bars) == {"sinusoidal", "rope"}
    for pe, values in BEST.items():
        assert bars[pe]["y"] == [pytest.approx(statistics.fmean(values), rel=1e-12)]
        assert bars[pe]["error_y"]["array"] == [pytest.approx(statistics.stdev(values), rel=1e-12)]
        assert "sample standard deviation (n - 1)" in bars[pe]["hovertemplate"]
    assert statistics.stdev(BEST["sinusoidal"]) == pytest.approx(1.258, abs=1e-3)  # the table's "31.17 ± 1.26"
    assert "mean ± sample standard deviation (n - 1), as the table's ±" in figure["layout"]["title"]["text"]


def test_a_chart_pooled_over_another_knob_says_so(tmp_path):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE)
    write_config(runs, "learned", SINUSOIDAL, **{"trainer.max_steps": 900})
    write_config(runs, "alibi", ROPE, **{"trainer.max_steps": 900})
    figure = by_knob(comparison(runs), "trainer.max_steps").to_dict()
    (short,) = [t for t in figure["data"] if "error_y" in t and t["name"].startswith("600")]
    pooled = BEST["sinusoidal"] + BEST["rope"]
    assert short["error_y"]["array"] == [pytest.approx(statistics.stdev(pooled), rel=1e-12)]
    assert "pooled over the other knobs" in figure["layout"]["title"]["text"]


def test_the_learning_curves_band_is_the_sample_sd_ending_at_the_final_value(runs_dir):
    result = comparison(runs_dir)
    figure = learning_curves(result).to_dict()
    for i, row in enumerate(result.rows):
        upper, lower, mean = figure["data"][3 * i : 3 * i + 3]
        values = FINAL[row.knobs["model.pe"]]
        assert (row.final.mean, row.final.std) == (statistics.fmean(values), statistics.stdev(values))
        assert upper["y"][-1] == pytest.approx(row.final.mean + row.final.std, rel=1e-12)
        assert lower["y"][-1] == pytest.approx(row.final.mean - row.final.std, rel=1e-12)
        assert mean["customdata"][-1] == pytest.approx(row.final.std, rel=1e-12)
        assert "(sample sd)" in mean["hovertemplate"]
    assert "band ± 1 sample standard deviation (n - 1)" in figure["layout"]["title"]["text"]


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_the_forest_plot_draws_the_interval_the_table_prints(runs_dir, alpha):
    result = comparison(runs_dir, alpha=alpha)
    (trace,) = forest(result).to_dict()["data"]
    low, high = stats.ttest_ind(BEST["rope"], BEST["sinusoidal"], equal_var=False).confidence_interval(1 - alpha)
    delta = statistics.fmean(BEST["rope"]) - statistics.fmean(BEST["sinusoidal"])
    assert trace["x"] == [pytest.approx(delta, rel=1e-12)]
    assert trace["error_x"]["array"] == [pytest.approx(high - delta, rel=1e-9)]
    assert trace["error_x"]["arrayminus"] == [pytest.approx(delta - low, rel=1e-9)]
    assert f"{100 * (1 - alpha):g}% interval [" in trace["hovertemplate"]
