"""``--all_pairs KNOB``: every pair of a knob's three or more values, Tukey's HSD; its numbers are scipy's
``tukey_hsd`` on the seeds' values, and every format names the best value and those that cannot be told from it."""

import csv
import html
import io

import pytest
from scipy.stats import tukey_hsd

from tests.compare.fake_runs import write_run

# val_loss (lower is better) of three seeds at each number of heads: 4 best, 8 close to it, 2 far
HEADS = {2: [2.450, 2.460, 2.455], 4: [2.380, 2.386, 2.390], 8: [2.384, 2.392, 2.389]}


def _heads_runs(runs, heads: dict = HEADS, **knobs) -> None:
    for n_heads, values in heads.items():
        for seed, value in enumerate(values, start=1):
            write_run(runs, f"do-h{n_heads}-s{seed}", [(250, value + 0.01), (300, value)], metric="val_loss",
                      knobs={"model.class_path": "zoo.tasks.LanguageModelTask", "model.n_heads": n_heads, **knobs},
                      seed=seed, group="do-heads")  # fmt: skip


@pytest.fixture
def heads_runs(tmp_path):
    runs = tmp_path / "runs"
    _heads_runs(runs)
    return runs


def test_the_pairs_are_scipys_tukey_hsd(heads_runs, compare_json):
    result = compare_json(heads_runs, "--all_pairs", "n_heads")["all_pairs"]
    expected = tukey_hsd(*HEADS.values())
    interval = expected.confidence_interval(0.95)
    assert result["knob"] == "model.n_heads" and result["values"] == [2, 4, 8]
    index = {2: 0, 4: 1, 8: 2}
    assert len(result["pairs"]) == 3
    for pair in result["pairs"]:
        i, j = index[pair["a"]], index[pair["b"]]
        assert pair["p"] == float(expected.pvalue[i, j])
        assert pair["delta"] == -expected.statistic[i, j]  # b - a
        assert (pair["ci_low"], pair["ci_high"]) == (-interval.high[i, j], -interval.low[i, j])
    assert result["best"] == 4 and result["cannot_be_told_from_best"] == [8]
    assert float(expected.pvalue[0, 1]) < 0.05 <= float(expected.pvalue[1, 2])  # the test's premise


def test_every_format_names_the_best_and_the_values_within_noise_of_it(heads_runs, compare, tmp_path):
    p_2, p_8 = (float(tukey_hsd(*HEADS.values()).pvalue[1, j]) for j in (0, 2))
    best = (
        f"Best: n_heads=4 (lowest mean val_loss, 2.385); cannot be told from it (Tukey p >= 0.05): n_heads=8 "
        f"(p {p_8:.3g}); told from it: n_heads=2 (p {p_2:.3g})."
    )
    title = ("All pairs of n_heads (3 values, the other knobs at the baseline's): val_loss best, Tukey's HSD (all "
             "pairs, simultaneous intervals), alpha 0.05:")  # fmt: skip
    for fmt in ("table", "markdown"):
        out = compare(heads_runs, "--all_pairs", "n_heads", "--format", fmt)[1]
        assert title in out and best in out, fmt
    markdown = compare(heads_runs, "--all_pairs", "n_heads", "--format", "markdown")[1]
    assert "| n_heads=4 vs 8 | +0.003 | [-0.00" in markdown and f"| {p_8:.3g} | within noise |" in markdown
    assert compare_json_finding(compare, heads_runs) == best
    rows = list(csv.DictReader(io.StringIO(compare(heads_runs, "--all_pairs", "n_heads", "--format", "csv")[1])))
    by_heads = {row["model.n_heads"]: row for row in rows}
    assert by_heads["4"]["all_pairs_best"] == "True" and by_heads["4"]["all_pairs_p_vs_best"] == ""
    assert float(by_heads["8"]["all_pairs_p_vs_best"]) == p_8 and float(by_heads["2"]["all_pairs_p_vs_best"]) == p_2
    report = tmp_path / "report.html"
    assert compare(heads_runs, "--all_pairs", "n_heads", "--report", report)[0] == 0
    page = report.read_text()
    assert html.escape(title) in page and html.escape(best) in page


def compare_json_finding(compare, runs) -> str:
    import json

    return json.loads(compare(runs, "--all_pairs", "n_heads", "--format", "json")[1])["all_pairs"]["finding"]


def test_two_values_are_refused_in_one_line(tmp_path, compare):
    runs = tmp_path / "runs"
    _heads_runs(runs, {2: HEADS[2], 4: HEADS[4]})
    status, out, err = compare(runs, "--all_pairs", "n_heads")
    assert status == 2 and out == ""
    assert err == (
        "zoo compare: error: --all_pairs n_heads: 2 values of n_heads with the other knobs at the baseline's (2, 4); "
        "all pairs need 3 or more (the table compares two)\n"
    )
    other = tmp_path / "other"  # n_heads 4 only beside another pe: one value at the baseline's pe
    _heads_runs(other, {2: HEADS[2]})
    _heads_runs(other / "rope", {4: HEADS[4]}, **{"model.pe": "rope"})
    status, _, err = compare(other, other / "rope", "--all_pairs", "n_heads", "--baseline", "n_heads=2")
    assert status == 2 and err.endswith("(2); all pairs need 3 or more\n"), err


def test_a_knob_that_does_not_differ_is_refused(heads_runs, compare):
    status, _, err = compare(heads_runs, "--all_pairs", "pe")
    assert status == 2 and err == (
        "zoo compare: error: --all_pairs 'pe' is not a knob that differs here; knobs: model.n_heads; or "
        "'configurations'\n"
    )
    for typed, near in (("configuration", "configurations"), ("n_head", "n_heads")):
        status, _, err = compare(heads_runs, "--all_pairs", typed)
        assert status == 2 and err.endswith(f"; did you mean {near!r}?\n"), err


def test_unequal_spreads_are_said(tmp_path, compare_json):
    runs = tmp_path / "runs"
    _heads_runs(runs, {**HEADS, 2: [2.30, 2.60, 2.45]})
    finding = compare_json(runs, "--all_pairs", "n_heads")["all_pairs"]["finding"]
    assert "The values' standard deviations differ" in finding and "Tukey's HSD pools them" in finding
    assert "-fold" in finding


def test_a_value_whose_seeds_agree_exactly_is_said_so_not_inf_fold(tmp_path, compare_json):
    runs = tmp_path / "runs"
    _heads_runs(runs, {**HEADS, 8: [2.389, 2.389, 2.389]})
    finding = compare_json(runs, "--all_pairs", "n_heads")["all_pairs"]["finding"]
    assert "standard deviations differ: one is 0 (its seeds agree exactly)" in finding and "inf" not in finding


# val_bleu of three seeds of four systems that differ in several knobs at once (sweeps/ed-architecture.yaml)
SYSTEMS = {
    ("rnn", "lstm", "none"): [4.3, 4.0, 4.6],
    ("rnn", "gru", "context"): [9.1, 8.7, 9.4],
    ("rnn", "gru", "additive"): [12.0, 12.6, 11.9],
    ("transformer", None, None): [15.8, 15.1, 16.3],
}


def _system_runs(runs) -> None:
    for (architecture, cell, attention), values in SYSTEMS.items():
        recurrent = {"model.rnn_cell": cell or "lstm", "model.rnn_attention": attention or "none"}  # n/a if no cell
        knobs = {"model.class_path": "zoo.tasks.TranslationTask", "model.architecture": architecture,
                 "model.pe": "sinusoidal", **recurrent}  # fmt: skip
        for seed, value in enumerate(values, start=1):
            write_run(runs, f"ed-{architecture}-{attention}-s{seed}", [(500, value)], metric="val_bleu", knobs=knobs,
                      seed=seed, group="ed-architecture")  # fmt: skip


def test_every_configuration_of_a_table_whose_rows_differ_in_several_knobs(tmp_path, compare, compare_json):
    """``--all_pairs configurations``: every row against every other, each named by its knobs' values (those that
    do not apply left out), with scipy's Tukey HSD over the rows' seeds."""
    runs = tmp_path / "runs"
    _system_runs(runs)
    result = compare_json(runs, "--all_pairs", "configurations", "--baseline", "architecture=transformer")["all_pairs"]
    names = {
        "architecture=transformer": SYSTEMS[("transformer", None, None)],
        "architecture=rnn, rnn_attention=additive, rnn_cell=gru": SYSTEMS[("rnn", "gru", "additive")],
        "architecture=rnn, rnn_attention=context, rnn_cell=gru": SYSTEMS[("rnn", "gru", "context")],
        "architecture=rnn, rnn_attention=none, rnn_cell=lstm": SYSTEMS[("rnn", "lstm", "none")],
    }
    assert result["knob"] == "configurations" and set(result["values"]) == set(names)
    samples = [names[value] for value in result["values"]]
    expected = tukey_hsd(*samples)
    for pair in result["pairs"]:
        i, j = result["values"].index(pair["a"]), result["values"].index(pair["b"])
        assert pair["p"] == float(expected.pvalue[i, j]) and pair["delta"] == -expected.statistic[i, j]
    assert result["best"] == "architecture=transformer" and result["cannot_be_told_from_best"] == []
    markdown = compare(runs, "--all_pairs", "configurations", "--format", "markdown")[1]
    assert "All pairs of the table's 4 configurations: val_bleu best, Tukey's HSD" in markdown
    assert "| architecture=rnn, rnn_attention=none, rnn_cell=lstm vs architecture=transformer |" in markdown or (
        "| architecture=transformer vs architecture=rnn, rnn_attention=none, rnn_cell=lstm |" in markdown
    )
    table = compare(runs, "--baseline", "architecture=transformer", "--format", "markdown")[1]
    assert "| rnn + none + lstm worse than transformer, beyond noise (Holm, alpha 0.05) |" in table  # no n/a named
    assert "n/a, beyond" not in table and "+ n/a" not in table
    rows = list(csv.DictReader(io.StringIO(compare(runs, "--all_pairs", "configurations", "--format", "csv")[1])))
    best = [row for row in rows if row["all_pairs_best"] == "True"]
    assert [row["model.architecture"] for row in best] == ["transformer"]
    assert all(row["all_pairs_p_vs_best"] for row in rows if row not in best)
