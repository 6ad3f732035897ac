"""What a comparison shows, said under every table (terminal, Markdown, HTML) and in the report's title block:
the sweep, the data, the training budget and the command that made it; why the baseline is the baseline
(:mod:`.baseline_choice`); what the seeds varied (:mod:`.seeds_varied`); and, for a short budget, how few
points the learning curves have."""

from __future__ import annotations

import os
import shlex

from zoo.compare.ablation import Comparison
from zoo.compare.seeds_varied import seeds_varied
from zoo.runs.identity import BUDGET_FIELDS

FEW_POINTS = 5  # a curve of fewer points than this is said to be one: it is a few numbers, not a shape


def _runs(comparison: Comparison) -> list:
    return [run for row in comparison.rows for run in row.runs]


def _distinct(values) -> list[str]:
    return sorted({str(value) for value in values if value not in (None, "", -1)})


def _data(config: dict) -> str | None:
    """A run's data set by its folder's name (or hub id), with its hub configuration: ``wikitext (wikitext-2-v1)``;
    data made by its module (the quickstart's digit reversal), by the module's class: ``ReversalDataModule``."""
    path = config.get("data.path")
    if not path:
        return str(config.get("data.class_path") or "").rpartition(".")[2] or None
    local = os.path.isabs(path) or path.startswith(".") or path.count("/") > 1
    name = os.path.basename(os.path.normpath(path)) if local else path
    return f"{name} ({config['data.name']})" if config.get("data.name") else name


def compare_command(argv: list[str]) -> str:
    """The command line of this comparison, as typed: ``python -m zoo compare do-pe --format markdown``."""
    return shlex.join(["python", "-m", "zoo", "compare", *argv])


def caption(comparison: Comparison, command: str | None) -> str:
    """One line: ``Shows sweep do-pe; data tinyshakespeare; budget trainer.max_steps=300; 6 runs; made by:
    python -m zoo compare do-pe``; a part with several values lists them all."""
    runs = _runs(comparison)
    sweeps = _distinct(run.group for run in runs)
    budget = [
        f"{key}={'/'.join(values)}"
        for key in BUDGET_FIELDS
        if (values := _distinct(run.config.get(key) for run in runs))
    ]
    parts = [
        f"sweep{'s' * (len(sweeps) > 1)} {', '.join(sweeps)}" if sweeps else "runs of no sweep",
        f"data {', '.join(_distinct(_data(run.config) for run in runs)) or 'unknown'}",
        f"budget {', '.join(budget) or 'unknown'}",
        f"{len(runs)} run{'s' * (len(runs) != 1)}",
    ]
    made = f"; made by: {command}" if command else ""
    return f"Shows {'; '.join(parts)}{made}."


def curve_points(comparison: Comparison) -> int | None:
    """The most points of ``comparison.metric`` any run's learning curve has, when that is under
    :data:`FEW_POINTS` (a short budget with two validations draws two points), else ``None``."""
    counts = [len(run.history.get(comparison.metric, [])) for run in _runs(comparison)]
    most = max(counts, default=0)
    return most if 0 < most < FEW_POINTS else None


def curve_note(comparison: Comparison) -> str | None:
    """A line saying how few points the learning curves have, or ``None`` (see :func:`curve_points`)."""
    points = curve_points(comparison)
    if points is None:
        return None
    steps = _distinct(step for run in _runs(comparison) for step, _ in run.history.get(comparison.metric, []))
    at = ", ".join(sorted(steps, key=int)[:FEW_POINTS])
    return (
        f"Learning curves: {comparison.metric} was measured {points} time{'s' * (points != 1)} a run (at step "
        f"{at}): each curve has {points} point{'s' * (points != 1)}, too few for its shape to say much."
    )


def lines(comparison: Comparison, command: str | None) -> list[str]:
    """The lines said under a table: the :func:`caption`, why the baseline is the baseline, what the seeds
    varied (:func:`zoo.compare.seeds_varied.seeds_varied`), then the :func:`curve_note` if any."""
    said = [caption(comparison, command), comparison.baseline_reason, seeds_varied(comparison), curve_note(comparison)]
    return list(filter(None, said))
