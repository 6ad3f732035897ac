"""A run's values in a comparison: its metric at the chosen point, whether it is left out, one run per seed."""

from __future__ import annotations

import statistics

from zoo.compare.records import Run
from zoo.runs.identity import is_seed
from zoo.runs.partial_evaluations import base_metric
from zoo.runs.record import lower_is_better


def seed_key(run: Run) -> tuple:
    """What repeats of one configuration differ in: the run's seeds (``seed_everything``, ``data.seed``), as
    sorted ``(field, repr(value))`` pairs. A rerun of one configuration and seed (a ``-2`` folder) has the key of
    the first run."""
    return tuple(sorted((k, repr(v)) for k, v in run.config.items() if is_seed(k)))


def metric_value(run: Run, metric: str, which: str) -> float | None:
    """The ``final`` or ``best`` value of ``metric`` in ``run`` (best: the record's, else over its history; of a
    test metric, the last test: the best over several tested checkpoints would choose on the test set)."""
    if which == "final" or base_metric(metric).startswith("test_"):
        return run.final.get(metric)
    if metric in run.best:
        return run.best[metric]
    values = [value for _, value in run.history.get(metric, [])]
    return min(values) if values and lower_is_better(metric) else max(values, default=None)


def _exclusion(run: Run, metric: str, include_unfinished: bool) -> str | None:
    if run.status != "finished" and not include_unfinished:
        return run.status
    if not run.config:  # an unfinished one's status says more (a sweep trial that failed before its record)
        return "no config.json" if run.status == "finished" else run.status
    if metric_value(run, metric, "final") is None:
        apart = sorted(name for name in run.final if name.endswith(f"/{metric}"))
        if apart:  # evaluated apart from the run's own settings (zoo.runs.partial_evaluations): another metric
            return f"{metric} only as {', '.join(apart)}"
        return f"no {metric} logged"
    return None


def _one_run_per_seed(runs: list[Run]) -> tuple[list[Run], list[tuple[str, str]]]:
    """The runs of one configuration with each seed once (the first by name: ``x`` before ``x-2``), and the
    reruns left out: a seed run twice is one sample, and counting it twice would shrink the spread that
    the t-test compares against."""
    kept: dict[tuple, Run] = {}
    left_out = []
    for run in sorted(runs, key=lambda r: r.name):
        seed = seed_key(run)
        if seed in kept:
            left_out.append((run.name, f"rerun of the seed of {kept[seed].name}"))
        else:
            kept[seed] = run
    return list(kept.values()), left_out


def _tokens_per_sec(run: Run) -> float | None:
    values = [value for _, value in run.history.get("tokens_per_sec", [])]
    return statistics.fmean(values) if values else None
