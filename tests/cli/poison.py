"""A callback for the non-finite loss tests: the loss of the given optimiser steps becomes NaN or infinite."""

from lightning.pytorch.callbacks import Callback


class PoisonLoss(Callback):
    """Multiplies the training loss of the steps in ``steps`` by ``value`` (``nan`` or ``inf``), on every rank or
    on rank ``rank`` only."""

    def __init__(self, steps: list[int], value: str = "nan", rank: int | None = None) -> None:
        self.steps, self.value, self.rank = steps, float(value), rank

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if trainer.global_step in self.steps and self.rank in (None, trainer.global_rank):
            loss = type(pl_module).training_loss
            pl_module.training_loss = lambda batch: (lambda out: (out[0] * self.value, out[1]))(loss(pl_module, batch))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        pl_module.__dict__.pop("training_loss", None)
