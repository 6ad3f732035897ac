"""Which metric a comparison is about: the task's own (the ``monitor`` of its task class: BLEU for translation,
accuracy for classification, validation loss for language models) unless ``--metric`` names another, and which
direction is better."""

from __future__ import annotations

import importlib

from zoo.compare.arguments import CompareError
from zoo.compare.records import Run
from zoo.runs.record import lower_is_better

# what fit logs about the run rather than its model (zoo.tasks.base.TaskModule.training_metrics but train_loss):
# shown as the table's own columns, never compared
BOOKKEEPING = ("grad_norm", "lr", "parameters", "tokens_per_sec", "train_tokens")


def better(metric: str, value: float, than: float) -> bool:
    """Whether ``value`` of ``metric`` beats ``than`` (lower is better for losses, perplexity, bits per char)."""
    return value < than if lower_is_better(metric) else value > than


def _monitor(class_path: str) -> str:
    module, _, name = class_path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name).monitor
    except (ImportError, AttributeError, ValueError) as error:
        raise CompareError(f"model.class_path={class_path!r} is not a task class of zoo; pass --metric") from error


def task_metric(runs: list[Run]) -> str:
    """The ``monitor`` metric of the runs' task class (``model.class_path`` in their config).

    Raises:
        CompareError: if no run names its task, or the runs are of tasks with different metrics.
    """
    metrics = {_monitor(path) for run in runs if (path := run.config.get("model.class_path"))}
    if len(metrics) != 1:
        found = ", ".join(sorted(metrics)) or "no model.class_path in the runs' config.json"
        raise CompareError(f"cannot pick one task metric for these runs ({found}); pass --metric")
    return metrics.pop()


def check_metric(metric: str | None, runs: list[Run]) -> str:
    """``metric``, or the task's (:func:`task_metric`) when it is ``None``, if some run logged it.

    Raises:
        CompareError: naming the metric and the ones the runs logged, also for one of :data:`BOOKKEEPING`.
    """
    logged = sorted({name for run in runs for name in run.final} - set(BOOKKEEPING))
    chosen = metric or task_metric(runs)
    if chosen in BOOKKEEPING:
        raise CompareError(
            f"--metric {chosen!r} is bookkeeping of the run, not a metric of its model; choose one of: "
            f"{', '.join(logged)}"
        )
    if chosen not in logged:
        what = f"--metric {chosen!r}" if metric else f"the task metric {chosen!r}"
        verb = "choose" if metric else "pass --metric,"
        raise CompareError(f"{what} is not logged by these runs; {verb} one of: {', '.join(logged)}")
    return chosen
