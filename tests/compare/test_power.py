"""What a comparison could detect: the power of Welch's test equals a simulation of the test itself; the
minimum detectable effect and the seeds to resolve a row are its roots; ``--plan`` turns them into seeds to
add to the sweep, which then runs only those."""

import json

import numpy as np
import pytest
from scipy import stats

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from zoo.compare.statistics import minimum_detectable_effect, seeds_to_resolve, welch_df, welch_power


def simulated_power(delta, sd_a, n_a, sd_b, n_b, alpha=0.05, draws=200_000):
    """The share of normal samples with these means and spreads that scipy's Welch test rejects."""
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.0, sd_a, (draws, n_a)), rng.normal(delta, sd_b, (draws, n_b))
    return float(np.mean(stats.ttest_ind(b, a, axis=1, equal_var=False).pvalue < alpha))


def noncentral_t_power(delta, sd_a, n_a, sd_b, n_b, alpha=0.05):
    se, df = np.sqrt(sd_a**2 / n_a + sd_b**2 / n_b), welch_df(sd_a, n_a, sd_b, n_b)
    critical = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(critical, df, delta / se) + stats.nct.cdf(-critical, df, delta / se)


@pytest.mark.parametrize(("sd_a", "n_a", "sd_b", "n_b"), [(1.26, 3, 1.53, 3), (0.5, 3, 2.0, 5), (1.0, 2, 0.3, 2)])
def test_the_minimum_detectable_effect_has_80_percent_power_in_a_simulation(sd_a, n_a, sd_b, n_b):
    mde = minimum_detectable_effect(sd_a, n_a, sd_b, n_b, 0.05)
    assert welch_power(mde, sd_a, n_a, sd_b, n_b, 0.05) == pytest.approx(0.8, abs=1e-9)
    assert simulated_power(mde, sd_a, n_a, sd_b, n_b) == pytest.approx(0.8, abs=0.004)  # 200k draws: sd 0.0009
    # the test's size: below alpha with a few seeds (Welch's test is conservative there), as simulated
    size = welch_power(0.0, sd_a, n_a, sd_b, n_b, 0.05)
    assert size <= 0.05 and size == pytest.approx(simulated_power(0.0, sd_a, n_a, sd_b, n_b), abs=0.002)


def test_the_noncentral_t_shortcut_is_optimistic_at_three_seeds_and_right_at_thirty():
    mde = minimum_detectable_effect(1.0, 3, 1.0, 3)
    assert noncentral_t_power(mde, 1.0, 3, 1.0, 3) > 0.86  # it takes the df as known
    shortcut = 4.36  # where the noncentral t says 80% at three seeds a side, sd 1.26 and 1.53
    assert noncentral_t_power(shortcut, 1.26, 3, 1.53, 3) == pytest.approx(0.8, abs=0.002)
    assert simulated_power(shortcut, 1.26, 3, 1.53, 3) == pytest.approx(0.70, abs=0.01)
    for delta in (0.3, 0.6, 0.9):
        assert welch_power(delta, 1.0, 30, 1.2, 30) == pytest.approx(
            noncentral_t_power(delta, 1.0, 30, 1.2, 30), abs=2e-3
        )


def test_seeds_to_resolve_is_the_first_n_with_enough_power():
    for delta in (0.6, 1.0, 2.0):
        n = seeds_to_resolve(delta, 1.0, 1.0)
        assert welch_power(delta, 1.0, n, 1.0, n) >= 0.8 > welch_power(delta, 1.0, n - 1, 1.0, n - 1)
    assert seeds_to_resolve(1.0, 1.0, 1.0) == 17
    assert seeds_to_resolve(0.5, 1.0, 1.0) is None  # 64 a side: more than 50
    assert seeds_to_resolve(0.0, 1.0, 1.0) is None


def test_rows_carry_their_power_at_the_corrected_level(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE)
    write_config(runs, "learned", [(31.0, 31.0, (1000.0,), 50.0), (31.5, 31.0, (1000.0,), 50.0),
                                   (31.2, 31.0, (1000.0,), 50.0)])  # fmt: skip
    result = compare_json(runs, "--baseline", "pe=sinusoidal")
    rows = {row["model.pe"]: row for row in result["rows"]}
    base = rows["sinusoidal"]
    assert (result["power"], base["mde"], base["seeds_to_resolve"]) == (0.8, None, None)
    for pe in ("rope", "learned"):
        row = rows[pe]
        sd = (base["val_bleu_best_std"], 3, row["val_bleu_best_std"], 3)
        assert row["mde"] == pytest.approx(minimum_detectable_effect(*sd, 0.05 / 2), rel=1e-9)  # two comparisons
        assert row["verdict"] == "within noise"
    spreads = (base["val_bleu_best_std"], rows["rope"]["val_bleu_best_std"])
    assert rows["rope"]["seeds_to_resolve"] == seeds_to_resolve(rows["rope"]["delta"], *spreads, 0.025) == 6
    assert rows["learned"]["seeds_to_resolve"] == "more than 50"  # Δ 0.07 against a spread of 1.26
    none = {
        row["model.pe"]: row
        for row in compare_json(runs, "--baseline", "pe=sinusoidal", "--correction", "none")["rows"]
    }
    sd = (base["val_bleu_best_std"], 3, rows["rope"]["val_bleu_best_std"], 3)
    assert none["rope"]["mde"] == pytest.approx(minimum_detectable_effect(*sd, 0.05), rel=1e-9)


def test_plan_lists_the_next_seeds_and_the_sweep_file(tmp_path, compare, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE)
    (runs / "pe-sweep").mkdir()
    (runs / "pe-sweep" / "sweep.json").write_text(json.dumps({"trials": {}, "file": "sweeps/ed-pe.yaml"}))
    plan = compare_json(runs)["plan"]
    rope = compare_json(runs)["rows"][1]
    assert rope["verdict"] == "within noise" and rope["seeds_to_resolve"] == 5
    assert plan == {"seeds_per_arm": 5, "rows": {"pe=rope": 5}, "unresolvable": [],
                    "add": {"seed_everything": [4, 5]}, "values": {"seed_everything": [1, 2, 3, 4, 5]}}  # fmt: skip
    status, out, _ = compare("pe-sweep", "--runs_dir", runs, "--plan")
    assert status == 0
    assert "add to the sweep file: parameters.seed_everything.values: [1, 2, 3, 4, 5] (new: 4, 5)." in out
    assert "Then run python -m zoo sweep sweeps/ed-pe.yaml again" in out
    status, out, err = compare(runs, "--plan", "--format", "json")  # data on stdout, the plan beside it
    assert status == 0 and json.loads(out)["plan"] == plan and "(new: 4, 5)" in err


def test_a_sweep_with_the_planned_seeds_adds_only_their_trials(tmp_path):
    """The plan's promise, on the sweep's own identity logic: the longer seed list is the same sweep
    (no changed definition), its trials keep their names, and the new ones are exactly the new seeds'."""
    from zoo.sweep.definition_changes import definition_changes, extended
    from zoo.sweep.spec import expand, load_sweep

    config = load_sweep("sweeps/ed-pe.yaml")
    seeds = config["parameters"]["seed_everything"]["values"]
    more = {**config, "parameters": {**config["parameters"], "seed_everything": {"values": [*seeds, 4, 5]}}}
    definition = {"method": "grid", "metric": config["metric"], "base": {}}
    then, now = ({**definition, "parameters": c["parameters"]} for c in (config, more))
    assert definition_changes(then, now) == []
    recorded = {**more, "parameters": extended(then, now)["parameters"]}
    before, after = {t.name for t in expand(config)}, {t.name for t in expand(more, names=recorded)}
    assert before < after and {name.rsplit("-", 1)[1] for name in after - before} == {"s4", "s5"}
    assert len(after - before) == 2 * len(before) // len(seeds)
