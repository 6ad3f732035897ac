"""A NaN or infinite loss never reaches the weights: training stops before the optimiser step (or skips the
batch), so the weights, and every checkpoint saved after, stay those of the last finite step."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import Callback

from zoo.callbacks import run_checkpoint
from zoo.gradients import step_gradient_norm

NonFiniteAction = Literal["stop", "skip"]


class NonFiniteLossError(RuntimeError):
    """Training stopped at a non-finite loss; the message names the step and the last good checkpoint."""


class NonFiniteLoss(Callback):
    """Check the loss and the gradients of every optimiser step before the step is taken (after the gradients
    are averaged over ranks, and the decision is shared, so that every rank does the same).

    Args:
        action: ``stop`` raises :class:`NonFiniteLossError` (the weights are left as they were after the last
            finite step); ``skip`` drops the gradients of the batch, so the optimiser changes no weight and no
            state (the step still counts, as in mixed precision's skipped steps), and goes on.
        record: the run's :class:`zoo.tracking.RunRecord` (``error`` or ``skipped_steps`` go to its summary),
            or ``None``.

    Raises:
        ValueError: for another ``action``, naming the field.
    """

    def __init__(self, action: NonFiniteAction = "stop", record=None) -> None:
        if action not in ("stop", "skip"):
            raise ValueError(f"nonfinite_loss={action!r} is not valid; choose one of: 'stop', 'skip'")
        self.action, self.record = action, record
        self.skipped_steps: list[int] = []
        self._loss_finite = True
        self._checkpoint_step: int | None = None

    def on_before_backward(self, trainer: pl.Trainer, pl_module, loss: torch.Tensor) -> None:
        self._last_loss = loss.detach()
        self._loss_finite = self._loss_finite and bool(torch.isfinite(self._last_loss))

    def on_before_optimizer_step(self, trainer: pl.Trainer, pl_module, optimizer) -> None:
        norm = step_gradient_norm(optimizer, trainer.global_step)  # finite when every gradient is (zoo.gradients)
        finite = self._loss_finite and (norm is None or bool(torch.isfinite(norm)))
        self._loss_finite = True
        if trainer.strategy.reduce_boolean_decision(finite, all=True):
            return
        step = trainer.global_step
        if self.action == "skip":
            optimizer.zero_grad(set_to_none=True)  # parameters without a gradient are left alone by the step
            self.skipped_steps.append(step)
            if trainer.is_global_zero:
                note = f"zoo: train loss {self._loss()} at step {step}; batch skipped (nonfinite_loss=skip)"
                print(note, file=sys.stderr)
            if self.record is not None:
                self.record.record(skipped_steps=self.skipped_steps)
            return
        message = (
            f"train loss is {self._loss()} at step {step}; stopped before the optimiser step, so no weight changed. "
            f"{self._last_good(trainer)}{_precision_hint(str(trainer.precision))}"
        )
        if self.record is not None:
            self.record.record(error=message)
        raise NonFiniteLossError(message)

    def _loss(self) -> str:
        """The loss, or what was not finite when it was (a gradient, or the loss on another rank)."""
        loss = self._last_loss.item()
        return str(loss) if not torch.isfinite(self._last_loss) else f"{loss:.4g} with non-finite gradients"

    def on_save_checkpoint(self, trainer: pl.Trainer, pl_module, checkpoint: dict) -> None:
        self._checkpoint_step = checkpoint["global_step"]

    def on_load_checkpoint(self, trainer: pl.Trainer, pl_module, checkpoint: dict) -> None:
        self._checkpoint_step = checkpoint["global_step"]

    def _last_good(self, trainer: pl.Trainer) -> str:
        """Where the last good checkpoint is, and how to go on from it."""
        checkpoint = run_checkpoint(trainer)
        path = checkpoint.last_model_path if checkpoint is not None else ""
        if not path or not Path(path).is_file():
            return "No checkpoint was saved before it."
        return (
            f"The last good checkpoint is {path} (step {self._checkpoint_step}); continue with --ckpt_path last "
            f"--nonfinite_loss=skip to skip such batches, or start again with a lower model.lr."
        )


def _precision_hint(precision: str) -> str:
    """What to try for a non-finite loss under ``16-true``: float16 throughout, with no loss scaling, overflows
    (65504 is its largest value) where float32, bfloat16 and ``16-mixed`` (scaled) do not."""
    if precision != "16-true":
        return ""
    return (
        " Under trainer.precision=16-true (float16 with no loss scaling) that is likely an overflow: use "
        "bf16-mixed, or 16-mixed on a GPU."
    )
