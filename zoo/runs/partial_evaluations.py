"""An evaluation that measures something else than the run's own evaluations is not the run's result, and is
recorded apart from it, its metrics renamed with a prefix:

- ``partial/<metric>``: a ``validate``/``test`` over part of its split (``trainer.limit_test_batches=2`` or
  ``0.1``) is a smoke check, so that no run record, W&B summary or ``zoo compare`` takes ``partial/test_bleu``
  for the run's ``test_bleu``;
- ``full/<metric>``: a ``validate`` over the whole split of a run whose validations took part of it
  (``fit --trainer.limit_val_batches=2``), whose ``val_loss`` series was measured on those batches;
- ``beam_size=5/<metric>``, ``block_size=128/<metric>``: an evaluation with settings other than the run's
  that its metrics depend on: a translation's decoder (``model.beam_size``, ``model.length_penalty``, ...) or
  the data (``data.block_size``, ``data.batch_size``, another ``data.path``), so that runs tested with a beam
  of 5 and runs tested greedily are never averaged into one ``test_bleu`` (``zoo compare --metric
  beam_size=5/test_bleu`` compares the former). With a partial split too: ``partial/beam_size=5/test_bleu``.

In ``fit`` a partial validation is part of the run's configuration (``trainer.limit_val_batches`` is in its
identity), so its metrics keep their names, and so do a ``validate``'s with the same settings.
"""

from __future__ import annotations

import hashlib
import os
from typing import NamedTuple

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_info

from zoo.runs.identity import (
    DEFAULTS,
    PATH_FIELDS,
    UNMEASURED_DATA_FIELDS,
    canonical_batches,
    changed_fields,
    identity,
    is_seed,
    same_value,
)

PARTIAL_PREFIX = "partial/"
FULL_PREFIX = "full/"
EVALUATION_PREFIXES = ("val_", "test_")


class Apart(NamedTuple):
    """Why an evaluation is recorded apart: its ``kind`` (``partial``, ``full``, ``settings``; the run record
    lists its metrics under ``<kind>_evaluations``), its metrics' ``prefix`` and what it covered or which
    settings differ (``reason``: ``"trainer.limit_test_batches=2 (2 of 31 batches)"``, ``"with beam_size=5"``).
    The ``decoded`` metrics (``bleu``: :attr:`zoo.tasks.TaskModule.decoded_metrics`) get ``decoded_prefix``
    instead, which also names the task's evaluation settings (``beam_size=5/``): a teacher-forced ``test_loss``
    does not depend on the decoder, and a test with a beam of 5 is still the run's ``test_loss``."""

    kind: str
    prefix: str
    reason: str
    decoded_prefix: str | None = None
    decoded: tuple[str, ...] = ()


def mark_apart(metrics: dict, apart: Apart | None) -> dict:
    """``metrics`` with each evaluation metric renamed ``<apart.prefix><name>`` when ``apart`` is set
    (``partial/test_bleu``), or ``<apart.decoded_prefix><name>`` for its decoded ones; unchanged otherwise."""
    if not apart:
        return metrics
    return {_renamed(key, apart): v for key, v in metrics.items()}


def _renamed(key: str, apart: Apart) -> str:
    if not key.startswith(EVALUATION_PREFIXES):
        return key
    decoded = apart.decoded_prefix is not None and key.split("_", 1)[1] in apart.decoded
    return (apart.decoded_prefix if decoded else apart.prefix) + key


def base_metric(name: str) -> str:
    """A metric's name without the prefixes of an evaluation apart: ``partial/beam_size=5/test_bleu`` ->
    ``test_bleu``."""
    return name.rsplit("/", 1)[-1]


class EvaluationsApart(Callback):
    """Mark the loggers of a ``validate`` or ``test`` command whose evaluation measures something else than the
    run's (another part of its split, another decoder, other data settings) with an :class:`Apart` (their
    ``apart`` attribute), and say so in one line. A ``validate`` with the ``limit_val_batches``, decoder and
    data settings the run trained with measures what its validations did, so its metrics keep their names.

    Args:
        loggers: the loggers whose ``log_metrics`` honour ``apart`` (:func:`mark_apart`).
        recorded: the run's recorded configuration (flat ``model.*``, ``trainer.*`` fields; ``{}``: none).
        current: the command's configuration, the same way; its ``data.*`` fields that differ from the run's
            (another ``block_size``, ``batch_size`` or data set) make the evaluation apart too.
    """

    def __init__(self, loggers: list, recorded: dict, current: dict | None = None) -> None:
        self.loggers, self.recorded = loggers, recorded
        self.data = data_differences(recorded, current or {}) if recorded else []

    def on_validation_start(self, trainer: pl.Trainer, pl_module) -> None:
        self._mark(trainer, pl_module, "val", trainer.num_val_batches, trainer.val_dataloaders)

    def on_test_start(self, trainer: pl.Trainer, pl_module) -> None:
        self._mark(trainer, pl_module, "test", trainer.num_test_batches, trainer.test_dataloaders)

    def _mark(self, trainer: pl.Trainer, pl_module, stage: str, batches: list, dataloaders) -> None:
        decoder = self._task_settings(pl_module, stage)
        settings = [*self.data, *decoder]
        subset = self._subset(trainer, stage, batches, dataloaders)
        if subset is None and not settings:
            return
        start = subset.prefix if subset else ""
        prefix = start + (f"{','.join(self.data)}/" if self.data else "")
        reasons = [*([subset.reason] if subset else []), *(["with " + ", ".join(settings)] if settings else [])]
        kind = subset.kind if subset else "settings"
        decoded = pl_module.decoded_metrics if decoder else ()
        apart = Apart(kind, prefix, "; ".join(reasons), f"{start}{','.join(settings)}/" if decoder else None, decoded)
        for logger in self.loggers:
            logger.apart = apart
        split = {"val": "validation", "test": "test"}[stage]
        rank_zero_info(f"zoo: this {split} is not the run's ({apart.reason}): {_recorded_as(apart, stage)}")

    def _task_settings(self, pl_module, stage: str) -> list[str]:
        return task_differences(pl_module, stage, self.recorded)

    def _subset(self, trainer: pl.Trainer, stage: str, batches: list, dataloaders) -> Apart | None:
        """The :class:`Apart` of an evaluation over another part of its split than the run's, or ``None``."""
        limit = getattr(trainer, f"limit_{stage}_batches")
        trained_with = self.recorded.get("trainer.limit_val_batches") if stage == "val" else None
        if stage == "val" and _same_limit(limit, trained_with):
            return None
        partial, evaluated, total = coverage(batches, dataloaders, limit)
        if partial:
            whole = f" of {total}" if total is not None else ""
            reason = f"trainer.limit_{stage}_batches={limit} ({evaluated}{whole} batches)"
            return Apart("partial", PARTIAL_PREFIX, reason)
        if stage == "val":  # the whole split, where the run's validations took part of it
            reason = f"the whole split, {evaluated} batches (the run validated on trainer.limit_val_batches="
            return Apart("full", FULL_PREFIX, f"{reason}{trained_with})")
        return None


def _recorded_as(apart: Apart, stage: str) -> str:
    """``its metrics are recorded as beam_size=5/test_*``, or for the decoded ones only."""
    if apart.decoded_prefix is None:
        return f"its metrics are recorded as {apart.prefix}{stage}_*"
    names = ", ".join(f"{stage}_{name}" for name in apart.decoded)
    rest = f"as {apart.prefix}{stage}_*" if apart.prefix else "under their own names (no decoder changes them)"
    return f"its {names} are recorded as {apart.decoded_prefix}{stage}_*, its other metrics {rest}"


def coverage(batches: list, dataloaders, limit) -> tuple[bool, int, int | None]:
    """Whether an evaluation or prediction covered part of its split only, the batches it covered and the
    split's (``None`` for a loader of unknown length, where only a ``limit`` fraction below 1 says it is part).

    Args:
        batches: the trainer's ``num_<stage>_batches``.
        dataloaders: the trainer's ``<stage>_dataloaders``.
        limit: ``trainer.limit_<stage>_batches``.
    """
    dataloaders = dataloaders if isinstance(dataloaders, (list, tuple)) else [dataloaders]
    covered = sum(int(n) for n in batches)
    try:
        total = sum(len(dataloader) for dataloader in dataloaders)
    except TypeError:  # an iterable dataset of unknown length
        return isinstance(limit, float) and limit < 1.0, covered, None
    return covered < total, covered, total


def task_differences(pl_module, stage: str, recorded: dict) -> list[str]:
    """``field=value`` for each of the task's settings of ``stage`` (:meth:`zoo.tasks.TaskModule.
    evaluation_settings`: the decoder of a translation's BLEU or predictions) that differs from the run's."""
    return [
        f"{name}={pl_module.hparams[name]}"
        for name in pl_module.evaluation_settings(stage)
        if f"model.{name}" in recorded and not same_value(recorded[f"model.{name}"], pl_module.hparams[name])
    ]


def data_differences(recorded: dict, current: dict) -> list[str]:
    """``field=value`` for each ``data.*`` field of the command that differs from the run's (in their one
    form, :func:`zoo.runs.identity.identity`), seeds and :data:`UNMEASURED_DATA_FIELDS` aside; a data folder is
    named by its last part and a short hash of its absolute path (``path=test-set@3f9a2c``), so that two folders
    of one name (``a/test-set``, ``b/test-set``) are two evaluations."""
    then, now = identity(recorded), identity(current)
    keys = [
        key
        for key in changed_fields(then, now)
        if key.startswith("data.") and not is_seed(key) and key not in UNMEASURED_DATA_FIELDS
    ]
    return [f"{key.removeprefix('data.')}={_shown(key, now.get(key, DEFAULTS.get(key)))}" for key in keys]


def _shown(key: str, value: object) -> str:
    if key in PATH_FIELDS and isinstance(value, str):
        return f"{os.path.basename(value)}@{hashlib.sha1(value.encode()).hexdigest()[:6]}"
    return str(value)


def _same_limit(limit, recorded) -> bool:
    """Whether a ``limit_val_batches`` is the one the run recorded, as Lightning reads them (``None`` is the
    whole split, ``1.0``; ``2.0`` is 2 batches; ``1`` is one batch, not the whole split)."""
    return same_value(canonical_batches(limit), canonical_batches(recorded))
