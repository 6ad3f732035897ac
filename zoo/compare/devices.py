"""What the runs of a comparison ran on and with, beside their knobs, where the arms differ in it: the effective
batch (on another world size, ``trainer.devices`` x ``trainer.num_nodes``, with gradient accumulation, or with
other batch settings, one optimiser step averages over another number of tokens or sentences, and a difference
of the metric is then the batch's as much as the knobs'), and the conditions of
:data:`zoo.compare.records.CONDITIONS` (device, precision, matmul precision, library versions, which can move the
metric and the speed; threads per process and cores, which move the speed), marked beside the cells they
affect."""

from __future__ import annotations

from zoo.compare.ablation import Comparison
from zoo.compare.records import CONDITIONS

MARK = "‡"  # beside a verdict or a speed cell of a row that differs from the baseline in a condition


def _batch(run) -> tuple | None:
    batch = run.effective_batch
    if not batch:
        return None
    return batch.get("per_step"), batch.get("unit"), batch.get("world_size")


def effective_batch_note(comparison: Comparison) -> str | None:
    """``Runs of different effective batch ...: 3870 target tokens a step (world size 1): a, b; ...`` where the
    runs that recorded their effective batch (:func:`zoo.runs.devices.effective_batch`) did not all train on the same
    one, or ``None``. Runs recorded before runs recorded it are left out of the note."""
    runs = {}
    for row in comparison.rows:
        for run in row.runs:
            if _batch(run) is not None:
                runs.setdefault(_batch(run), []).append(run.name)
    if len(runs) < 2:
        return None
    shown = "; ".join(
        f"{per_step:g} {unit} a step (world size {world_size}): {', '.join(names)}"
        for (per_step, unit, world_size), names in sorted(runs.items(), key=lambda item: item[0][0] or 0)
    )
    return (
        f"Runs of different effective batch (what one optimiser step averages over: a device's batch x world size "
        f"x trainer.accumulate_grad_batches), so a Δ between them is the batch's as much as the knobs': {shown}."
    )


def _of(row, name: str) -> str:
    return " / ".join(sorted({run.conditions[name] for run in row.runs if name in run.conditions}))


def differing_conditions(comparison: Comparison) -> dict[str, dict[str, list]]:
    """The :data:`CONDITIONS` in which a row's runs differ from the baseline's: condition -> its values -> the
    rows with them (the baseline's first), where the knobs do not already show it (``trainer.precision``)."""
    base = comparison.rows[0]
    differing = {}
    for name, _, _ in CONDITIONS:
        if name == "precision" and "trainer.precision" in comparison.knobs:
            continue
        values: dict[str, list] = {}
        for row in comparison.rows:
            if row.runs and _of(row, name):
                values.setdefault(_of(row, name), []).append(row)
        if len(values) > 1 and base.runs:
            differing[name] = dict(sorted(values.items(), key=lambda item: base not in item[1]))
    return differing


def marked(comparison: Comparison, row) -> tuple[bool, bool]:
    """Whether ``row``'s verdict, and its speed cells, stand beside a condition it does not share with the
    baseline (:func:`differing_conditions`)."""
    moves = {name: metric for name, _, metric in CONDITIONS}
    apart = [name for name, values in differing_conditions(comparison).items()
             if not any(row in rows and comparison.rows[0] in rows for rows in values.values())]  # fmt: skip
    return any(moves[name] for name in apart), bool(apart)


def conditions_note(comparison: Comparison, label) -> str | None:
    """``‡ Rows that ran apart from the baseline in what is no knob: ...``, naming each condition, its values
    and their rows, and what it affects; ``None`` where every row ran as the baseline did."""
    differing = differing_conditions(comparison)
    if not differing:
        return None
    moves = {name: metric for name, _, metric in CONDITIONS}
    parts = [
        f"{name} ({'; '.join(f'{value}: ' + ', '.join(label(row) for row in rows) for value, rows in values.items())}"
        f"; {'the verdict, tokens/s and wall time' if moves[name] else 'tokens/s and wall time'})"
        for name, values in differing.items()
    ]
    return (
        f"{MARK} Beside a verdict, tokens/s or wall time: the row ran apart from the baseline in what is no knob, so "
        f"that cell is as much that difference's as the knob's: {'; '.join(parts)}."
    )
