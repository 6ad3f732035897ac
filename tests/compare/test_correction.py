"""The verdicts of a table's rows are corrected for their number: Holm-Bonferroni by default, Bonferroni or
none on request, each p-value equal to a computation by hand from scipy's Welch p-values."""

import itertools

import pytest
from scipy import stats

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from zoo.compare.statistics import adjust

# best values of three variations: rope clearly better, learned slightly, alibi not at all
LEARNED = [(32.0, 32.0, (1000.0,), 50.0), (33.4, 33.0, (1000.0,), 50.0), (33.9, 33.0, (1000.0,), 50.0)]
ALIBI = [(30.5, 30.0, (1000.0,), 50.0), (31.5, 31.0, (1000.0,), 50.0), (32.0, 31.0, (1000.0,), 50.0)]


def holm_by_definition(p_values, alpha):
    """Holm 1979 as a procedure: reject the smallest p while it is below alpha / (m - rank)."""
    order, rejected = sorted(range(len(p_values)), key=lambda i: p_values[i]), set()
    for rank, i in enumerate(order):
        if p_values[i] >= alpha / (len(p_values) - rank):
            break
        rejected.add(i)
    return rejected


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])  # 3*0.01, max(2*0.03, 1*0.04) ...
    assert adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust(p, "none") == p
    assert adjust([0.5, 0.9], "bonferroni") == [1.0, 1.0] and adjust([], "holm") == []
    for values in itertools.product([0.001, 0.012, 0.02, 0.03, 0.2], repeat=4):  # adjusted p < alpha: Holm's set
        for alpha in (0.05, 0.1):
            adjusted = adjust(list(values), "holm")
            assert {i for i, q in enumerate(adjusted) if q < alpha} == holm_by_definition(values, alpha)


@pytest.fixture
def table(tmp_path):
    runs = tmp_path / "runs"
    for pe, seeds in (("sinusoidal", SINUSOIDAL), ("rope", ROPE), ("learned", LEARNED), ("alibi", ALIBI)):
        write_config(runs, pe, seeds)
    return runs


def welch_p(seeds):
    return stats.ttest_ind([s[0] for s in seeds], [s[0] for s in SINUSOIDAL], equal_var=False).pvalue


@pytest.mark.parametrize("method", ["holm", "bonferroni", "none"])
def test_a_table_is_one_family(table, compare_json, method):
    result = compare_json(table, "--baseline", "pe=sinusoidal", "--correction", method)
    rows = {row["model.pe"]: row for row in result["rows"]}
    raw = {pe: welch_p(seeds) for pe, seeds in (("rope", ROPE), ("learned", LEARNED), ("alibi", ALIBI))}
    assert {pe: rows[pe]["p_value"] for pe in raw} == pytest.approx(raw, rel=1e-12)
    by_hand = dict(zip(raw, adjust(list(raw.values()), method), strict=True))
    if method == "holm":  # the three p-values, smallest first: times 3, 2, 1, kept non-decreasing
        ordered = sorted(raw, key=raw.get)
        steps = [min(1, (3 - k) * raw[pe]) for k, pe in enumerate(ordered)]
        by_hand = {pe: max(steps[: k + 1]) for k, pe in enumerate(ordered)}
    assert {pe: rows[pe]["p_adjusted"] for pe in raw} == pytest.approx(by_hand, rel=1e-12)
    assert result["correction"] == method and rows["sinusoidal"]["p_adjusted"] is None
    for pe in raw:
        assert rows[pe]["verdict"] == ("beyond noise" if by_hand[pe] < 0.05 else "within noise")


def test_the_verdict_says_which_correction_and_alpha(table, compare):
    status, out, _ = compare(table, "--baseline", "pe=sinusoidal", "--format", "markdown")
    header, _, base, *rows = [line for line in out.splitlines() if line.startswith("|")]
    assert status == 0 and "| Welch p | Holm p | verdict |" in header
    raw = welch_p(ROPE)
    holm = min(1, 3 * raw)  # rope's is the smallest of the three
    rope = next(line for line in rows if "| rope |" in line)
    assert f"| {raw:.3g} | {holm:.3g} | within noise (Holm, alpha 0.05) |" in rope
    assert "Holm p: adjusted (Holm-Bonferroni step-down) for the table's 3 comparisons with the baseline" in out
    status, out, _ = compare(table, "--baseline", "pe=sinusoidal", "--correction", "none", "--alpha", "0.1", "--wide")
    assert status == 0 and "Holm p" not in out
    assert "rope better than sinusoidal, beyond noise (uncorrected, alpha 0.1)" in out
    assert "uncorrected for the table's 3 comparisons" in out
    status, _, err = compare(table, "--correction", "sidak")
    assert status == 2 and "argument --correction: invalid choice: 'sidak'" in err
