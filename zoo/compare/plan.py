"""``zoo compare --plan``: the seeds to add to a sweep so that its rows within noise would be resolved, and how
to run them. A sweep names each trial by its parameter values, so a seed list with more values adds only the
new seeds' trials: ``zoo sweep`` skips the finished ones (:func:`zoo.sweep.definition_changes.extended`)."""

from __future__ import annotations

import json
from pathlib import Path

from zoo.compare.ablation import Comparison, detection_level
from zoo.compare.cells import label
from zoo.compare.statistics import MOST_SEEDS, POWER, minimum_detectable_effect
from zoo.runs.identity import is_seed


def seed_plan(comparison: Comparison) -> dict:
    """What ``--plan`` proposes.

    Returns:
        ``{"seeds_per_arm": N or None, "rows": {label: seeds per arm}, "unresolvable": [label, ...],
        "add": {seed key: [new values]}, "values": {seed key: [every value]}}``: ``N`` is the most seeds any
        resolvable row within noise needs; the new values of each seed key the runs vary are the next
        integers after the largest used.
    """
    rows, unresolvable = {}, []
    for row in comparison.rows:
        d = row.difference
        if d is None or d.verdict != "within noise":
            continue
        if d.seeds_needed is None:
            unresolvable.append(label(row))
        else:
            rows[label(row)] = (d.seeds_needed, min(len(row.runs), len(comparison.rows[0].runs)))
    target = max((needed for needed, _ in rows.values()), default=None)
    more = max((needed - have for needed, have in rows.values()), default=0)
    runs = [run for row in comparison.rows for run in row.runs]
    used = {key: sorted({run.config[key] for run in runs if key in run.config}) for key in _seed_keys(runs)}
    add = {key: list(range(max(values) + 1, max(values) + 1 + more)) for key, values in used.items() if more > 0}
    return {
        "seeds_per_arm": target,
        "rows": {name: needed for name, (needed, _) in rows.items()},
        "unresolvable": unresolvable,
        "add": add,
        "values": {key: [*used[key], *add[key]] for key in add},
    }


def _what_would_help(comparison: Comparison) -> list[str]:
    """For each row that even :data:`MOST_SEEDS` seeds per arm would not resolve: the smallest |Δ| that many
    seeds detect with its spread (:func:`.statistics.minimum_detectable_effect`, at the table's per-row level), how
    many times too small its Δ is for that, and what else would resolve it."""
    level = detection_level(comparison.rows, comparison.alpha, comparison.correction)
    base = getattr(comparison.rows[0], comparison.value)
    lines = []
    for row in comparison.rows:
        d, own = row.difference, getattr(row, comparison.value)
        if d is None or d.verdict != "within noise" or d.seeds_needed is not None:
            continue
        mde = minimum_detectable_effect(base.std, MOST_SEEDS, own.std, MOST_SEEDS, level)
        short = f"{mde / abs(d.delta):.1f}x" if d.delta else "infinitely"
        lines.append(
            f"{label(row)}: {MOST_SEEDS} seeds per arm detect |Δ| >= {mde:.3g}, and its Δ is {d.delta:+.3g}, "
            f"{short} too small. What would help instead: a larger effect (a bolder value of the knob), a smaller "
            f"spread over seeds ({short} smaller: a longer training budget, where the seeds converge), or a paired "
            f"comparison (--paired: the same seeds in both arms, whose shared noise cancels where they correlate)."
        )
    return lines


def _seed_keys(runs) -> list[str]:
    """The seed fields whose values differ among the runs, integers only (the ones a plan can count on)."""
    keys = {key for run in runs for key in run.config if is_seed(key)}
    return sorted(
        key
        for key in keys
        if len({run.config.get(key) for run in runs}) > 1
        and all(isinstance(run.config.get(key), int) for run in runs if key in run.config)
    )


def plan_lines(comparison: Comparison, runs_dir: Path) -> list[str]:
    """``--plan`` in words: the rows it would resolve, the seed values to add to the sweep file, and the
    command that runs only them."""
    plan = seed_plan(comparison)
    lines = [
        f"Plan for {comparison.metric} ({POWER:.0%} power to detect each row's observed Δ, if it is the true one):"
    ]
    if plan["rows"]:
        rows = "; ".join(f"{name} ({n} seeds per arm)" for name, n in plan["rows"].items())
        lines.append(f"rows within noise that more seeds would resolve: {rows}.")
    if plan["unresolvable"]:
        lines.append(
            f"rows within noise that more than {MOST_SEEDS} seeds per arm would not resolve (their Δ is small "
            f"against their spread): {', '.join(plan['unresolvable'])}."
        )
        lines += _what_would_help(comparison)
    if not plan["rows"]:
        lines.append(
            "no seeds to add" + (": every row is beyond noise or untested." if not plan["unresolvable"] else ".")
        )
        return lines
    if not plan["add"]:
        lines.append(f"the runs already have {plan['seeds_per_arm']} seeds per arm, or vary no integer seed field.")
        return lines
    for key, values in plan["values"].items():
        new = ", ".join(map(str, plan["add"][key]))
        lines.append(f"add to the sweep file: parameters.{key}.values: {json.dumps(values)} (new: {new}).")
    sweep = _sweep_file(comparison, runs_dir)
    again = f"python -m zoo sweep {sweep}" if sweep else "the same `python -m zoo sweep FILE ...` command"
    lines.append(
        f"Then run {again} again, with the same extra arguments: each trial is named by its values, so the finished "
        f"ones are skipped and only the new seeds' trials run; then compare again."
    )
    return lines


def _sweep_file(comparison: Comparison, runs_dir: Path) -> str | None:
    """The sweep file the runs came from, as their sweep's state records it (one sweep only)."""
    groups = {run.group for row in comparison.rows for run in row.runs}
    if len(groups) != 1 or None in groups:
        return None
    try:
        return json.loads((runs_dir / groups.pop() / "sweep.json").read_text()).get("file")
    except (OSError, ValueError):
        return None
