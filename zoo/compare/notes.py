"""The notes under a comparison: what the numbers are, the test and its threshold, the columns, and what only these
runs need said."""

from __future__ import annotations

import math

from zoo.compare.ablation import Comparison, detection_level
from zoo.compare.cells import UNTESTED, UNTESTED_NOTE, headers, label, level, narrow_columns
from zoo.compare.devices import conditions_note, effective_batch_note
from zoo.compare.records import NOT_APPLYING, UNFINISHED_STATUSES
from zoo.compare.run_values import metric_value
from zoo.compare.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, NAMES, POWER, TEST_NAME
from zoo.runs.partial_evaluations import base_metric

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
    return lines + _conditional_notes(comparison)


def _conditional_notes(comparison: Comparison) -> list[str]:
    """The footer's lines that only some tables need: ``--at``, diverged runs, other data or effective batches,
    rows that differ in more than one knob, unfinished runs counted, runs left out."""
    notes = []
    if comparison.at is not None:
        notes.append(_at_note(comparison))
    diverged = [run.name for row in comparison.rows for run in row.runs if _not_finite(comparison, run)]
    if diverged:
        notes.append(
            f"Runs whose {comparison.metric} is not finite (diverged), counted: their configuration's mean is inf "
            f"or nan and its Δ is not finite: {', '.join(diverged)}."
        )
    data = [knob for knob in comparison.knobs if knob in DATA_SET_FIELDS]
    if data:
        notes.append(
            f"The runs are of different data ({', '.join(data)}): each is evaluated on its own data's validation "
            f"and test sets, so a Δ across data compares the data sets as much as the knobs."
        )
    notes += filter(None, [effective_batch_note(comparison), conditions_note(comparison, label)])
    joint = _joint_differences(comparison)
    if joint:
        shown = "; ".join(joint[:5]) + (f"; and {len(joint) - 5} more" if len(joint) > 5 else "")
        notes.append(
            f"Rows that differ from the baseline in more than one knob: their Δ is the knobs' joint effect, not one "
            f"knob's: {shown}."
        )
    unfinished = [name for row in comparison.rows for name in row.unfinished]
    if unfinished:
        notes.append(
            f"Unfinished runs counted (--include_unfinished), with their values from where they stopped, not from "
            f"the end of their budget: {', '.join(unfinished)}."
        )
    if comparison.excluded:
        left_out = ", ".join(f"{name} ({reason})" for name, reason in comparison.excluded)
        unfinished = any(reason in UNFINISHED_STATUSES for _, reason in comparison.excluded)
        hint = " (--include_unfinished counts unfinished runs)" if unfinished else ""
        notes.append(f"Left out of the statistics{hint}: {left_out}.")
    return notes


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
    """``"pe=rope, max_steps=60"`` for each row that differs from the baseline in two knobs or more; a knob that
    does not apply on either side (``n/a``: an RNN's ``rnn_cell`` beside a Transformer) is part of the
    architecture's difference, not an effect of its own."""
    base = next((row for row in comparison.rows if row.is_baseline), None)
    if base is None:
        return []
    joint = []
    for row in comparison.rows:
        pairs = [(knob, row.knobs.get(knob), base.knobs.get(knob)) for knob in comparison.knobs]
        differs = [f"{k}={v}" for k, v, b in pairs if v != b and NOT_APPLYING not in (v, b)]
        if len(differs) > 1:
            joint.append(", ".join(differs))
    return joint
