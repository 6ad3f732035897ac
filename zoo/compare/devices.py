"""The note of a comparison whose runs trained on different effective batches: on another world size
(``trainer.devices`` x ``trainer.num_nodes``), with gradient accumulation, or with other batch settings, one
optimiser step averages over another number of tokens or sentences, and a difference of the metric is then the
batch's as much as the knobs'."""

from __future__ import annotations

from zoo.compare.ablation import Comparison


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
