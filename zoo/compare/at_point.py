"""Compute-matched comparisons (``--at step=N|tokens=N|wall=SECONDS``): each run at the same point of its
curve, its last evaluation at or before the point, so that an arm that is slower per step is also judged per
token or per second. Steps are the optimiser's; tokens are the training tokens seen (``train_tokens``,
logged with each evaluation of ``fit``, over all ranks); seconds are the run's wall time of training and
evaluation when the evaluation was logged (``wall_time_s`` on each line of ``metrics.jsonl``; W&B's
``_runtime``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from zoo.compare.arguments import CompareError
from zoo.compare.records import Run
from zoo.runs.record import lower_is_better

# the axis -> the series that places each evaluation on it (None: the step itself), and what it is called
AXES = {"step": (None, "step"), "tokens": ("train_tokens", "training tokens"), "wall": ("wall_time_s", "s")}


@dataclass(frozen=True)
class Point:
    """``step=2000``: an axis of :data:`AXES` and a value on it."""

    axis: str
    value: float

    def __str__(self) -> str:
        return f"{self.axis}={self.value:g}"


def parse_point(text: str) -> Point:
    """``step=2000`` -> ``Point("step", 2000.0)``.

    Raises:
        CompareError: for another axis or a value that is not a positive number (a step: an integer).
    """
    axis, _, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if axis.strip() not in AXES or not number > 0 or (axis.strip() == "step" and not number.is_integer()):
        raise CompareError(f"--at {text!r} is not valid; give step=N, tokens=N or wall=SECONDS, with N > 0")
    return Point(axis.strip(), number)


def _position(run: Run, point: Point, step: int) -> float | None:
    """Where the evaluation at ``step`` is on ``point``'s axis (``None`` where the run does not record it)."""
    series = AXES[point.axis][0]
    if series is None:
        return float(step)
    return dict(run.history.get(series, [])).get(step)


def _end(run: Run, point: Point) -> float | None:
    """How far on ``point``'s axis ``run`` got: its last logged step, or the last such step's tokens or time."""
    steps = sorted({step for points in run.history.values() for step, _ in points}, reverse=True)
    return next((position for step in steps if (position := _position(run, point, step)) is not None), None)


def ended_before(runs: list[Run], point: Point) -> list[str]:
    """The names of the runs that ended before ``point`` (they are compared at their last evaluation).

    Raises:
        CompareError: when every run did, so that the comparison would be of the final values only.
    """
    ends = {run.name: _end(run, point) for run in runs}
    ended = [name for name, end in ends.items() if end is None or end < point.value]
    if runs and len(ended) == len(runs):
        latest = max((end for end in ends.values() if end is not None), default=None)
        where = "" if latest is None else f" (the longest ends at {point.axis} {latest:g})"
        raise CompareError(
            f"--at {point} is past the end of every run{where}; choose a point at or before it, or leave out --at "
            f"to compare the runs' final values"
        )
    return ended


def run_at(run: Run, metric: str, point: Point) -> tuple[Run, tuple[int, float]]:
    """``run`` as it stood at its last evaluation of ``metric`` at or before ``point``: its history cut there,
    ``final`` that evaluation's value and ``best`` the best until then.

    Returns:
        The cut run, and ``(step, position)`` of the evaluation used.

    Raises:
        CompareError: the run records no position on the axis for its evaluations, or has no evaluation at or
            before the point (naming its first).
    """
    evaluations = run.history.get(metric, [])
    placed = [(step, value, _position(run, point, step)) for step, value in evaluations]
    if evaluations and all(position is None for *_, position in placed):
        what = AXES[point.axis][0]
        raise CompareError(
            f"--at {point}: run {run.name} records no {what} at its evaluations (runs trained before zoo logged it "
            f"do not); compare at a step instead (--at step=N)"
        )
    before = [
        (step, value, position) for step, value, position in placed if position is not None and position <= point.value
    ]
    if not before:
        first = next(((s, p) for s, _, p in placed if p is not None), None)
        where = "" if first is None or point.axis == "step" else f" (step {first[0]})"
        seen = f"its first is at {point.axis} {first[1]:g}{where}" if first else f"it logged no {metric}"
        raise CompareError(
            f"--at {point}: run {run.name} has no {metric} evaluation at or before it ({seen}); choose a later point"
        )
    step, value, position = before[-1]
    values = [v for _, v, _ in before if math.isfinite(v)] or [value]  # best: over the finite ones, as the record
    cut_history = {name: [(s, v) for s, v in points if s <= step] for name, points in run.history.items()}
    cut = replace(
        run,
        history=cut_history,
        final={**run.final, metric: value},
        best={**run.best, metric: min(values) if lower_is_better(metric) else max(values)},
    )
    return cut, (step, position)
