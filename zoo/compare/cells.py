"""Text for the cells and the notes of a comparison, shared by the terminal table, Markdown and the HTML report
(CSV and JSON carry the raw numbers instead)."""

from __future__ import annotations

import math

from zoo.compare.ablation import Comparison, Row, detection_level
from zoo.compare.correction import NAMES
from zoo.compare.devices import effective_batch_note
from zoo.compare.power import MOST_SEEDS, POWER
from zoo.compare.records import UNFINISHED_STATUSES
from zoo.compare.run_values import metric_value
from zoo.compare.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, TEST_NAME, Difference, Spread
from zoo.compare.verdicts import words
from zoo.runs.partial_evaluations import base_metric


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
        human(row.tokens_per_sec.mean),
        duration(row.wall_time_s.mean),
    ]


def _count(row: Row) -> str:
    """``3``, ``3 (1 unfinished)``, or ``0 (2 left out)`` for a configuration none of whose runs is counted."""
    if not row.runs:
        return f"0 ({len(row.left_out)} left out)"
    return str(len(row.runs)) + (f" ({len(row.unfinished)} unfinished)" if row.unfinished else "")


INTERVAL_NAMES = {
    "welch": "Welch's t",
    "bootstrap": f"percentile bootstrap of the difference of means ({BOOTSTRAP_RESAMPLES} resamples, "
    f"default_rng({BOOTSTRAP_SEED}); narrower than Welch's at few seeds, docs/known-effects.md; the verdict is "
    "Welch's)",
}

LAST_TEST = (
    "last test (a test metric has no best: the best of several tested checkpoints would be chosen on the test set)"
)


# the fields that choose the data set, and with it the set each run is evaluated on
DATA_SET_FIELDS = ("data.class_path", "data.path", "data.name")
GUIDE = "docs/compare.md"  # where every column is explained


def notes(comparison: Comparison, wide: bool = True) -> list[str]:
    """The footer, a few lines: what the numbers are, the test and its threshold, the columns of a ``wide``
    table (else how to show them), where every column is explained, then what only these runs need said (the
    point of ``--at``, diverged seeds, data, joint effects, runs counted unfinished or left out)."""
    direction = "lower" if comparison.lower_is_better else "higher"
    compared = f"{comparison.value} value" if not comparison.last_test else LAST_TEST
    lines = [
        f"{comparison.metric}: mean ± sample standard deviation over the n seeds, {direction} is better; Δ compares "
        f"each run's {compared} with the baseline's [its {level(comparison)} confidence interval: "
        f"{INTERVAL_NAMES[comparison.interval]}; per row, not adjusted for the table's other rows].",
        f"{TEST_NAME}; {_correction_note(comparison)}.",
    ]
    if wide:
        lines += [
            f"MDE: the smallest |Δ| the test detects with {POWER:.0%} power at the row's seeds and spread, at "
            f"{_level_words(comparison)}; seeds to resolve: the seeds per arm that would detect a row's Δ within "
            f"noise (--plan). {UNTESTED_NOTE}",
            f"Every column explained: {GUIDE}.",
        ]
    else:
        shown, every = narrow_columns(comparison), headers(comparison)
        hidden = [name.removesuffix(f" {UNTESTED}") for i, name in enumerate(every) if i and i not in shown]
        lines.append(
            f"--wide adds {', '.join(hidden[:-1])} and {hidden[-1]} (markdown, csv, json and --report have every "
            f"column); every column explained: {GUIDE}."
        )
    if comparison.at is not None:
        lines.append(_at_note(comparison))
    diverged = [run.name for row in comparison.rows for run in row.runs if _not_finite(comparison, run)]
    if diverged:
        lines.append(
            f"Runs whose {comparison.metric} is not finite (diverged), counted: their configuration's mean is inf "
            f"or nan and its Δ is not finite: {', '.join(diverged)}."
        )
    data = [knob for knob in comparison.knobs if knob in DATA_SET_FIELDS]
    if data:
        lines.append(
            f"The runs are of different data ({', '.join(data)}): each is evaluated on its own data's validation "
            f"and test sets, so a Δ across data compares the data sets as much as the knobs."
        )
    batch = effective_batch_note(comparison)
    if batch:
        lines.append(batch)
    joint = _joint_differences(comparison)
    if joint:
        shown = "; ".join(joint[:5]) + (f"; and {len(joint) - 5} more" if len(joint) > 5 else "")
        lines.append(
            f"Rows that differ from the baseline in more than one knob: their Δ is the knobs' joint effect, not one "
            f"knob's: {shown}."
        )
    unfinished = [name for row in comparison.rows for name in row.unfinished]
    if unfinished:
        lines.append(
            f"Unfinished runs counted (--include_unfinished), with their values from where they stopped, not from "
            f"the end of their budget: {', '.join(unfinished)}."
        )
    if comparison.excluded:
        left_out = ", ".join(f"{name} ({reason})" for name, reason in comparison.excluded)
        unfinished = any(reason in UNFINISHED_STATUSES for _, reason in comparison.excluded)
        hint = " (--include_unfinished counts unfinished runs)" if unfinished else ""
        lines.append(f"Left out of the statistics{hint}: {left_out}.")
    return lines


def _at_note(comparison: Comparison) -> str:
    """Which evaluation (of a training metric: which log) of each row's runs was compared at ``--at``, how its
    steps are counted, which runs ended before the point, and that the other columns are the whole run's."""
    at = comparison.at
    unit = {"step": "", "tokens": " tokens", "wall": " s"}[at.axis]
    what = "log" if base_metric(comparison.metric).startswith("train_") else "evaluation"
    used = []
    for row in comparison.rows:
        points = [comparison.points[run.name] for run in row.runs if run.name in comparison.points]
        steps = ", ".join(str(step) for step, _ in points)
        where = "" if at.axis == "step" else f" ({', '.join(f'{position:g}{unit}' for _, position in points)})"
        used.append(f"{label(row)}: step {steps}{where}" if points else f"{label(row)}: none")
    final = f"final: that {what}'s value" + ("" if comparison.value == "final" else "; best: the best until then")
    ended = comparison.ended
    runs, their = ("runs", "their") if len(ended) != 1 else ("run", "its")
    short = (
        f" {len(ended)} {runs} ended before the point ({', '.join(ended)}): {their} last {what} is compared."
        if ended
        else ""
    )
    return (
        f"Compared at {at}: each run at its last {comparison.metric} {what} at or before it ({final}); "
        f"{what}s used: {'; '.join(used)}.{short} Steps count the optimiser updates done when the value was "
        f"measured: a train_loss at step 299 is that of the 300th batch (before its update), a val_ metric at "
        f"step 300 is measured after the 300th update. Params, tokens/s and wall time are the whole run's, not "
        f"at the point."
    )


def _level_words(comparison: Comparison) -> str:
    level = detection_level(comparison.rows, comparison.alpha, comparison.correction)
    if comparison.correction == "none":
        return f"alpha {level:.3g}"
    return f"alpha / comparisons = {level:.3g} (Bonferroni's level, which Holm's test meets too)"


def _correction_note(comparison: Comparison) -> str:
    family = sum(1 for row in comparison.rows if row.difference is not None and row.difference.tested)
    family = f"{family} comparison{'s' * (family != 1)}"
    alpha = f"{comparison.alpha:g}"
    if comparison.correction == "none":
        return f"p < {alpha} marks a difference beyond seed noise, uncorrected for the table's {family}"
    how = "Holm-Bonferroni step-down" if comparison.correction == "holm" else "Bonferroni"
    return (
        f"{NAMES[comparison.correction]} p: adjusted ({how}) for the table's {family} with the baseline, "
        f"and an adjusted p < {alpha} marks a difference beyond seed noise (--correction none: each p alone)"
    )


def _not_finite(comparison: Comparison, run) -> bool:
    values = [metric_value(run, comparison.metric, which) for which in ("best", "final")]
    return any(value is not None and not math.isfinite(value) for value in values)


def _joint_differences(comparison: Comparison) -> list[str]:
    """``"pe=rope, max_steps=60"`` for each row that differs from the baseline in two knobs or more."""
    base = next((row for row in comparison.rows if row.is_baseline), None)
    if base is None:
        return []
    joint = []
    for row in comparison.rows:
        differs = [
            f"{knob}={row.knobs.get(knob)}" for knob in comparison.knobs if row.knobs.get(knob) != base.knobs.get(knob)
        ]
        if len(differs) > 1:
            joint.append(", ".join(differs))
    return joint
