"""A verdict in words that say which arm is better: ``pre worse than post, beyond noise (Holm, alpha 0.05)``, so
that no reader has to combine the sign of Δ with the metric's direction. Shared by the Welch table, the paired
table, CSV, JSON and the HTML report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zoo.compare.records import NOT_APPLYING
from zoo.compare.statistics import NAMES

if TYPE_CHECKING:
    from zoo.compare.ablation import Comparison

BEYOND = "beyond noise"


def direction(comparison: Comparison, delta: float, verdict: str) -> str | None:
    """``better`` or ``worse``: the variation against the baseline, for a verdict ``beyond noise`` (the metric's
    direction, :func:`zoo.runs.record.lower_is_better`, applied to the sign of Δ = variation - baseline); ``None``
    for any other verdict, whose direction no test has shown."""
    if verdict != BEYOND:
        return None
    return "better" if (delta < 0) == comparison.lower_is_better else "worse"


def _value(knob: str, value) -> str:
    """A knob's value as a name: a word stands alone (``rope``); a number or a flag needs its knob
    (``n_heads=4``, ``bias=True``)."""
    text = str(value)
    if isinstance(value, str) and text and not text.replace(".", "", 1).lstrip("-").isdigit():
        return text
    return f"{knob.removeprefix('model.')}={text}"


def arms(comparison: Comparison, knobs: dict) -> tuple[str, str]:
    """The variation with ``knobs`` and the baseline, named by the knobs in which they differ:
    ``("pre", "post")``, ``("batchnorm + rope", "layernorm + sinusoidal")``."""
    base = comparison.rows[0].knobs
    differ = [knob for knob in comparison.knobs if knobs.get(knob) != base.get(knob)] or list(comparison.knobs)
    return _named(knobs, differ), _named(base, differ)


def _named(values: dict, differ: list[str]) -> str:
    """An arm by its values of the knobs ``differ``, leaving out those that do not apply to it (an RNN's ``pe``:
    ``rnn + lstm worse than transformer``, not ``... than transformer + n/a``)."""
    applying = [knob for knob in differ if values.get(knob) != NOT_APPLYING] or differ
    return " + ".join(_value(knob, values.get(knob)) for knob in applying)


def words(comparison: Comparison, knobs: dict, delta: float, verdict: str, tested: bool, short: bool = False) -> str:
    """The verdict cell: ``rope better than sinusoidal, beyond noise (Holm, alpha 0.05)``; ``within noise
    (Holm, alpha 0.05)``; a verdict of no test (``n too small``) as it is. ``short`` (the terminal's table):
    ``better than base, beyond noise`` and ``within noise``, the correction and alpha said once under it."""
    if not tested:
        return verdict
    which = direction(comparison, delta, verdict)
    if which is None:
        said = verdict
    elif short:
        said = f"{which} than base, {verdict}"
    else:
        variation, baseline = arms(comparison, knobs)
        said = f"{variation} {which} than {baseline}, {verdict}"
    return said if short else f"{said} ({NAMES[comparison.correction]}, alpha {comparison.alpha:g})"
