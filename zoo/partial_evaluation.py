"""An evaluation over part of its split (``validate``/``test`` with ``trainer.limit_test_batches=2`` or
``0.1``) is a smoke check, not the run's result: its metrics are logged as ``partial/<metric>``
(``partial/test_bleu``), so that no run record, W&B summary or ``zoo compare`` takes them for the run's
``test_bleu``. In ``fit`` a partial validation is part of the run's configuration (``trainer.limit_val_batches``
is in its identity), so its metrics keep their names.
"""

from __future__ import annotations

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_info

PARTIAL_PREFIX = "partial/"
EVALUATION_PREFIXES = ("val_", "test_")


def mark_partial(metrics: dict, partial: str | None) -> dict:
    """``metrics`` with each evaluation metric renamed ``partial/<name>`` when ``partial`` (what limited the
    evaluation) is set; unchanged otherwise."""
    if not partial:
        return metrics
    return {PARTIAL_PREFIX + key if key.startswith(EVALUATION_PREFIXES) else key: v for key, v in metrics.items()}


class PartialEvaluation(Callback):
    """Mark the loggers of a ``validate`` or ``test`` command that evaluates fewer batches than its split has
    (their ``partial`` attribute: ``"trainer.limit_test_batches=2 (2 of 31 batches)"``) and say so in one line.
    A ``validate`` with the ``limit_val_batches`` the run trained with measures what its validations did, so
    its metrics keep their names.

    Args:
        loggers: the loggers whose ``log_metrics`` honour ``partial`` (:func:`mark_partial`).
        trained_with: the run's recorded ``trainer.limit_val_batches`` (``None``: the whole split).
    """

    def __init__(self, loggers: list, trained_with: float | None = None) -> None:
        self.loggers, self.trained_with = loggers, trained_with

    def on_validation_start(self, trainer: pl.Trainer, pl_module) -> None:
        if _same_limit(trainer.limit_val_batches, self.trained_with):
            return
        self._mark(trainer, "val", trainer.num_val_batches, trainer.val_dataloaders, trainer.limit_val_batches)

    def on_test_start(self, trainer: pl.Trainer, pl_module) -> None:
        self._mark(trainer, "test", trainer.num_test_batches, trainer.test_dataloaders, trainer.limit_test_batches)

    def _mark(self, trainer: pl.Trainer, stage: str, batches: list, dataloaders, limit) -> None:
        dataloaders = dataloaders if isinstance(dataloaders, (list, tuple)) else [dataloaders]
        try:
            lengths = [len(dataloader) for dataloader in dataloaders]
        except TypeError:  # an iterable dataset of unknown length: only a fraction below 1 says it is partial
            lengths = None
        evaluated = sum(int(n) for n in batches)
        partial = evaluated < sum(lengths) if lengths is not None else isinstance(limit, float) and limit < 1.0
        if not partial:
            return
        whole = f" of {sum(lengths)}" if lengths is not None else ""
        setting = f"trainer.limit_{stage}_batches={limit} ({evaluated}{whole} batches)"
        for logger in self.loggers:
            logger.partial = setting
        split = {"val": "validation", "test": "test"}[stage]
        rank_zero_info(
            f"zoo: this {split} covers part of its split, {setting}: its metrics are recorded as "
            f"{PARTIAL_PREFIX}{stage}_*, not as the run's"
        )


def _same_limit(limit, recorded) -> bool:
    """Whether a ``limit_val_batches`` is the one the run recorded (``None`` is the whole split, ``1.0``; a
    count read back from a record may be ``2.0``; Lightning reads ``1`` as ``1.0`` too)."""
    return float(limit) == float(1.0 if recorded is None else recorded)
