"""Text for the cells and the notes of a comparison, shared by the terminal table, Markdown and the HTML report
(CSV and JSON carry the raw numbers instead)."""

from __future__ import annotations

import math

from zoo.compare.ablation import Comparison, Row
from zoo.compare.devices import MARK, marked
from zoo.compare.statistics import MOST_SEEDS, NAMES, Difference, Spread
from zoo.compare.verdicts import words


def decimals_for(value: float | None, significant: int = 4) -> int:
    """Decimals that show ``value`` to ``significant`` digits (36.81 -> 2, 0.9172 -> 4), at most 6."""
    if not value or not math.isfinite(value):
        return significant - 1
    return min(6, max(0, significant - 1 - math.floor(math.log10(abs(value)))))


def mean_std(s: Spread, decimals: int) -> str:
    """``36.81 ± 0.42``; ``36.81`` for one value; ``—`` for none."""
    if s.mean is None:
        return "—"
    return f"{s.mean:.{decimals}f}" + ("" if s.std is None else f" ± {s.std:.{decimals}f}")


def human(value: float | None, unit: str = "") -> str:
    """``24608`` -> ``24.6k``, ``1.2e6`` -> ``1.2M``."""
    if value is None:
        return "—"
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}{unit}"
    return f"{value:.3g}{unit}"


def duration(seconds: float | None) -> str:
    """``91 s``, ``6.5 min``, ``1.2 h``."""
    if seconds is None:
        return "—"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def short_knob(knob: str) -> str:
    """``model.pe`` -> ``pe``; other sections keep their prefix (``trainer.max_steps``)."""
    return knob.removeprefix("model.")


def label(row: Row) -> str:
    """``pe=rope, norm=batchnorm`` (``base`` marked); ``all runs`` when no knob differs."""
    text = ", ".join(f"{short_knob(k)}={v}" for k, v in row.knobs.items()) or "all runs"
    return f"{text} (base)" if row.is_baseline else text


UNTESTED = "†"  # beside the columns that no test tells from noise
# the columns of speed, which measure the machine's load (other processes, trials side by side) as much as a knob
NOT_TESTED_FOR_NOISE = ("tokens_per_sec", "wall_time_s")
UNTESTED_NOTE = (
    f"{UNTESTED} tokens/s and wall time are not tested for noise: they measure the machine's load as much as the knob."
)


def headers(comparison: Comparison) -> list[str]:
    """Every column's header, as markdown, CSV's order, the report and ``--wide`` show them."""
    metric, which = comparison.metric, comparison.value
    other = "final" if which == "best" else "best"
    values = [f"{metric} last test"] if comparison.last_test else [f"{metric} {which}", f"{metric} {other}"]
    return ["", *map(short_knob, comparison.knobs), "n", *values,
            f"Δ {'last test' if comparison.last_test else which} [{level(comparison)} CI]", "Welch p",
            *([f"{NAMES[comparison.correction]} p"] if comparison.correction != "none" else []), "verdict", "MDE",
            "seeds to resolve", "params", f"tokens/s {UNTESTED}", f"wall time {UNTESTED}"]  # fmt: skip


def narrow_columns(comparison: Comparison) -> list[int]:
    """The columns of the terminal's default table, as indices of :func:`headers`: the knobs, ``n``, the value
    compared, Δ with its interval, the p-value the verdict is of (adjusted, where a correction applies) and the
    verdict, which says ``base`` in the baseline's row (no label column); narrow enough for a terminal of 100
    columns (``--wide`` shows them all)."""
    names = headers(comparison)
    p = "Welch p" if comparison.correction == "none" else f"{NAMES[comparison.correction]} p"
    delta = next(i for i, name in enumerate(names) if name.startswith("Δ "))
    return [*range(1, len(comparison.knobs) + 3), delta, names.index(p), names.index("verdict")]


def level(comparison: Comparison) -> str:
    """The intervals' confidence level, ``95%`` for alpha 0.05."""
    return f"{100 * (1 - comparison.alpha):g}%"


def _vs_baseline(comparison: Comparison, row: Row, decimals: int, short: bool) -> list[str]:
    adjusted = comparison.correction != "none"
    d = row.difference
    if d is None:  # the terminal's table, with no label column, names the baseline in its verdict's
        verdict = "base" if short and row.is_baseline else "—"
        return ["—"] * (2 + adjusted) + [verdict, "—", "—"]
    interval = "" if d.ci_low is None else f" [{d.ci_low:+.{decimals}f}, {d.ci_high:+.{decimals}f}]"
    p = ["—" if d.p is None else f"{d.p:.3g}"]
    p += ["—" if d.p_adjusted is None else f"{d.p_adjusted:.3g}"] if adjusted else []
    mde = "—" if d.mde is None else f"{d.mde:.{decimals}f}"
    said = words(comparison, row.knobs, d.delta, d.verdict, d.tested, short)
    said += f" {MARK}" if marked(comparison, row)[0] else ""  # beside a condition that can move the metric
    return [f"{d.delta:+.{decimals}f}{interval}", *p, said, mde, seeds_cell(d)]


def seeds_to_resolve_value(d: Difference) -> int | str | None:
    """The seeds per arm that would resolve a row within noise; ``more than 50`` past what is searched;
    ``None`` for a row beyond noise or with no test."""
    if d.verdict != "within noise":
        return None
    return d.seeds_needed if d.seeds_needed is not None else f"more than {MOST_SEEDS}"


def seeds_cell(d: Difference) -> str:
    value = seeds_to_resolve_value(d)
    return "" if value is None else str(value).replace(f"more than {MOST_SEEDS}", f"> {MOST_SEEDS}")


def cells(comparison: Comparison, row: Row, short: bool = False) -> list[str]:
    """The display cells of ``row``, in the order of :func:`headers`; a variation's knob cells are blank where
    it has the baseline's value, as in Table 3 of Vaswani et al. 2017; ``short``: the terminal's verdict
    (:func:`zoo.compare.verdicts.words`)."""
    base = comparison.rows[0]
    decimals = decimals_for(getattr(base, comparison.value).mean)
    knobs = ["" if not row.is_baseline and value == base.knobs[knob] else str(value)
             for knob, value in row.knobs.items()]  # fmt: skip
    values = [row.best, row.final] if comparison.value == "best" else [row.final, row.best]
    values = values[:1] if comparison.last_test else values
    return [
        "base" if row.is_baseline else "",
        *knobs,
        _count(row),
        *(mean_std(s, decimals) for s in values),
        *_vs_baseline(comparison, row, decimals, short),
        human(row.parameters.mean),
        *(cell + (f" {MARK}" if marked(comparison, row)[1] else "")
          for cell in (human(row.tokens_per_sec.mean), duration(row.wall_time_s.mean))),
    ]  # fmt: skip


def _count(row: Row) -> str:
    """``3``, ``3 (1 unfinished)``, or ``0 (2 left out)`` for a configuration none of whose runs is counted."""
    if not row.runs:
        return f"0 ({len(row.left_out)} left out)"
    return str(len(row.runs)) + (f" ({len(row.unfinished)} unfinished)" if row.unfinished else "")
