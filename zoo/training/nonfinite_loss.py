"""A NaN or infinite loss never reaches the weights: training stops before the optimiser step (or skips the
batch), so the weights, and every checkpoint saved after, stay those of the last finite step."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Literal

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.strategies import DDPStrategy, DeepSpeedStrategy

from zoo.tasks.gradients import step_gradient_norm
from zoo.training.callbacks import run_checkpoint

NonFiniteAction = Literal["stop", "skip"]


class NonFiniteLossError(RuntimeError):
    """Training stopped at a non-finite loss; the message names the step and the last good checkpoint."""


class NonFiniteLoss(Callback):
    """Check the loss and the gradients of every optimiser step before the step is taken (after the gradients
    are averaged over ranks, and the decision is shared, so that every rank does the same: under DDP the averaged
    gradients decide, the same on every rank, without a vote). With a fused AdamW on one process or under DDP the
    check is decided on the device (:func:`decided_on_device`: the optimiser drops the step itself) and read at
    the steps that log, before a validation or checkpoint and when training ends, so that the host never waits
    for the device in between; the outcome is the same.

    Args:
        action: ``stop`` raises :class:`NonFiniteLossError` (the weights are left as they were after the last
            finite step); ``skip`` drops the gradients of the batch, so the optimiser changes no weight and no
            state (the step still counts, as in mixed precision's skipped steps), and goes on.
        record: the run's :class:`zoo.runs.record.RunRecord` (``error`` or ``skipped_steps`` go to its summary),
            or ``None``.

    Raises:
        ValueError: for another ``action``, naming the field.
    """

    def __init__(self, action: NonFiniteAction = "stop", record=None) -> None:
        if action not in ("stop", "skip"):
            raise ValueError(f"nonfinite_loss={action!r} is not valid; choose one of: 'stop', 'skip'")
        self.action, self.record = action, record
        self.skipped_steps: list[int] = []
        self._loss_finite: torch.Tensor | None = None
        self._pending: list[tuple[int, torch.Tensor, torch.Tensor]] = []  # (step, finite, loss), read later
        self._checkpoint_step: int | None = None

    def on_before_backward(self, trainer: pl.Trainer, pl_module, loss: torch.Tensor) -> None:
        self._last_loss = loss.detach()
        finite = torch.isfinite(self._last_loss)  # on the device: read at the next logging step, or now (below)
        self._loss_finite = finite if self._loss_finite is None else self._loss_finite & finite

    def on_before_optimizer_step(self, trainer: pl.Trainer, pl_module, optimizer) -> None:
        norm = step_gradient_norm(optimizer, trainer.global_step)  # finite when every gradient is (zoo.tasks.gradients)
        finite, self._loss_finite = self._loss_finite, None
        shared = gradients_shared(trainer)
        if norm is not None:
            # gradients averaged over the ranks are the same on each: their norm alone decides alike everywhere
            finite = torch.isfinite(norm) if finite is None or shared else finite & torch.isfinite(norm)
        if decided_on_device(trainer, optimizer):
            return self._mask_on_device(trainer.global_step, finite, optimizer)
        if finite is None:
            return
        if trainer.world_size == 1 or shared:
            if bool(finite):
                return
        elif trainer.strategy.reduce_boolean_decision(bool(finite), all=True):
            return
        if self.action == "skip":
            optimizer.zero_grad(set_to_none=True)  # parameters without a gradient are left alone by the step
        self._non_finite(trainer, trainer.global_step, self._last_loss)

    def _mask_on_device(self, step: int, finite: torch.Tensor | None, optimizer) -> None:
        """Let the fused optimiser drop the step on the device (``found_inf``, as a ``GradScaler`` does: no
        weight, moment or step count changes) when it is not finite, and keep the decision to read later.
        Under ``stop`` every step after a non-finite one is dropped too, until the error is raised."""
        if finite is None:
            optimizer.found_inf = None
            return
        if self.action == "stop" and self._pending:
            finite = finite & self._pending[-1][1]
        optimizer.found_inf = (~finite).float()
        self._pending.append((step, finite, self._last_loss))

    def read_decisions(self, trainer: pl.Trainer) -> None:
        """Read the decisions kept on the device since the last read, in one transfer, and act on the
        non-finite steps: report the skipped ones, or raise for the first under ``stop``. Called at the
        steps that log, before validation and before a checkpoint is saved, and when training ends."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        decisions = torch.stack([finite for _, finite, _ in pending]).tolist()
        for (step, _, loss), finite in zip(pending, decisions, strict=True):
            if not finite:
                self._non_finite(trainer, step, loss)

    def _non_finite(self, trainer: pl.Trainer, step: int, loss: torch.Tensor) -> None:
        """Report the skipped step ``step`` under ``skip``; raise :class:`NonFiniteLossError` under ``stop``."""
        if self.action == "skip":
            self.skipped_steps.append(step)
            if trainer.is_global_zero:
                note = f"zoo: train loss {_loss(loss)} at step {step}; batch skipped (nonfinite_loss=skip)"
                print(note, file=sys.stderr)
            if self.record is not None:
                self.record.record(skipped_steps=self.skipped_steps)
            return
        message = (
            f"train loss is {_loss(loss)} at step {step}; stopped before the optimiser step, so no weight changed. "
            f"{self._last_good(trainer)}{_precision_hint(str(trainer.precision))}"
        )
        if self.record is not None:
            self.record.record(error=message)
        raise NonFiniteLossError(message)

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        if trainer._logger_connector.should_update_logs or trainer.fast_dev_run:
            self.read_decisions(trainer)

    def on_validation_start(self, trainer: pl.Trainer, pl_module) -> None:
        self.read_decisions(trainer)

    def on_train_end(self, trainer: pl.Trainer, pl_module) -> None:
        self.read_decisions(trainer)
        for optimizer in trainer.optimizers:
            optimizer.__dict__.pop("found_inf", None)

    def on_exception(self, trainer: pl.Trainer, pl_module, exception: BaseException) -> None:
        if self.action == "skip":  # report what was skipped before the interruption
            self.read_decisions(trainer)

    def on_save_checkpoint(self, trainer: pl.Trainer, pl_module, checkpoint: dict) -> None:
        self.read_decisions(trainer)  # a checkpoint is never saved after a non-finite step under stop
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


def _loss(loss: torch.Tensor) -> str:
    """The loss, or what was not finite when it was (a gradient, or the loss on another rank)."""
    value = loss.item()
    return str(value) if not math.isfinite(value) else f"{value:.4g} with non-finite gradients"


def gradients_shared(trainer: pl.Trainer) -> bool:
    """Whether every rank holds the same gradients when the optimiser steps: DDP (``ddp``, ``ddp_spawn``, ...)
    averages them over the ranks during the backward pass, so a non-finite gradient of one rank (which a
    non-finite loss gives) is non-finite on every rank, and each rank decides a step as the others do without
    a vote. Not FSDP (each rank holds a shard) nor DeepSpeed (which steps its own optimiser)."""
    strategy = trainer.strategy
    return trainer.world_size > 1 and isinstance(strategy, DDPStrategy) and not isinstance(strategy, DeepSpeedStrategy)


def decided_on_device(trainer: pl.Trainer, optimizer) -> bool:
    """Whether a step's finiteness can be decided on the device, so that the host never waits for it: one
    process, or ranks whose gradients are the same (:func:`gradients_shared`; other ranks would have to vote),
    and an optimiser that drops a step itself when told ``found_inf`` (AdamW with ``fused=True``), with no
    ``GradScaler`` (``16-mixed``), which sets that itself."""
    return (
        (trainer.world_size == 1 or gradients_shared(trainer))
        and getattr(optimizer, "_step_supports_amp_scaling", False)
        and getattr(trainer.precision_plugin, "scaler", None) is None
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
