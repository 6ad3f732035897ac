"""Multiple comparisons: a table compares each of its variations with the baseline, and at alpha 0.05 a table of
16 variations that change nothing still expects 0.8 rows "beyond noise". The family is one table's comparisons
(one metric); its p-values are adjusted together, Holm-Bonferroni by default (Holm 1979: the family-wise error
rate is at most alpha, as with Bonferroni, and never fewer rows are found)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zoo.compare.statistics import Difference

if TYPE_CHECKING:
    from zoo.compare.paired_test import PairedDifference

NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "uncorrected"}


def adjust(p_values: list[float], method: str = "holm") -> list[float]:
    """Adjusted p-values, in the order given.

    Args:
        p_values: the family's p-values.
        method: ``holm`` (step-down: the i-th smallest of m times ``m - i + 1``, made non-decreasing),
            ``bonferroni`` (each times m) or ``none``; each adjusted value at most 1.

    Returns:
        The adjusted p-values: a comparison is beyond noise where its adjusted p is below alpha.
    """
    m = len(p_values)
    if method == "none":
        return list(p_values)
    if method == "bonferroni":
        return [min(1.0, m * p) for p in p_values]
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def correct(differences: list[Difference] | list[PairedDifference], method: str, alpha: float) -> None:
    """Set ``p_adjusted`` and the verdict of each tested difference of one family (the ones with a p-value).

    Args:
        differences: one table's differences to its baseline, of one metric: Welch's, or the paired test's.
        method: one of :data:`zoo.compare.arguments.CORRECTIONS`.
        alpha: adjusted p-values below it are beyond noise.
    """
    tested = [d for d in differences if d.tested]
    for difference, p in zip(tested, adjust([d.p for d in tested], method), strict=True):
        difference.p_adjusted = p
        difference.verdict = "beyond noise" if p < alpha else "within noise"
