"""What lets a killed run continue as if it had never stopped: a ``last.ckpt`` every N steps, and random draws
(dropout) that depend on the step, not on what the process did before it.

With both, and the position in the train batches that every checkpoint keeps (:mod:`zoo.data.batching`),
``fit --ckpt_path last`` after a kill gives the loss curve of the uninterrupted run, exactly on CPU.
"""

from __future__ import annotations

import hashlib
import os

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import Callback

from zoo.training.callbacks import run_checkpoint


def step_seed(seed: int, step: int, rank: int) -> int:
    """A 63-bit seed that is a function of the run's seed, the optimiser step and the rank only."""
    digest = hashlib.sha256(f"{seed}:{step}:{rank}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


class StepSeed(Callback):
    """Seed torch's generators at the start of every training step from ``(seed_everything, step, rank)``.

    A resumed process has drawn other random numbers before its first step than the process it continues
    (model initialisation, sanity check, data loader seeds), and Lightning does not save generator states in a
    checkpoint; seeding each step makes the dropout masks of step ``t`` the same in both. Does nothing when
    no seed is set (``seed_everything: false``).

    On CPU only the CPU generator is seeded: ``torch.manual_seed`` also visits every other backend's generators
    (CUDA, MPS, XPU and custom devices), 0.1-0.6 ms a step against 1 us (docs/performance.md).
    """

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module, batch, batch_idx: int) -> None:
        seed = os.environ.get("PL_GLOBAL_SEED")  # set by Lightning's seed_everything
        if seed is None:
            return
        seed = step_seed(int(seed), trainer.global_step, trainer.global_rank)
        if pl_module.device.type == "cpu":
            torch.default_generator.manual_seed(seed)
        else:
            torch.manual_seed(seed)


class SaveLastEvery(Callback):
    """Save ``last.ckpt`` (the file the run's ``ModelCheckpoint`` keeps as its last) every
    ``every_n_train_steps`` optimiser steps, so that a kill -9 (out of memory, a lost machine) loses at most that
    many steps. Lightning writes a checkpoint to a temporary file and moves it into place, so a kill while
    saving leaves the previous ``last.ckpt`` whole.

    Args:
        every_n_train_steps: the interval, in optimiser steps (the name of Lightning's ``ModelCheckpoint``).

    Raises:
        ValueError: for an interval below 1, naming the field.
    """

    def __init__(self, every_n_train_steps: int) -> None:
        if every_n_train_steps < 1:
            raise ValueError(
                f"checkpoint_every_n_steps={every_n_train_steps} is not valid; it must be a positive integer"
            )
        self.every_n_train_steps = every_n_train_steps
        self._saved_step: int | None = None

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        step, checkpoint = trainer.global_step, run_checkpoint(trainer)
        if checkpoint is None or step % self.every_n_train_steps or step == self._saved_step:
            return  # the same step again: gradient accumulation
        path = os.path.join(checkpoint.dirpath, checkpoint.CHECKPOINT_NAME_LAST + checkpoint.FILE_EXTENSION)
        trainer.save_checkpoint(path, weights_only=False)  # every rank calls it; rank 0 writes
        checkpoint.last_model_path, self._saved_step = path, step  # ModelCheckpoint then overwrites, not "last-v1"


class LoggingStep(Callback):
    """Log each training step at its step: at the start of every training batch, Lightning's logging step
    (``_batches_that_stepped``, which it saves in a checkpoint without advancing it for the step the save
    ends) is set to the optimiser step. A checkpoint saved after the loop ended holds it advanced already,
    and Lightning advances it once more when it restarts at a validation step, so a run continued with a larger
    ``max_steps`` from one logged its steps one too far (7, 8, 9 after step 6), and once more at each resume."""

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module, batch, batch_idx: int) -> None:
        trainer.fit_loop.epoch_loop._batches_that_stepped = trainer.global_step


class EpochInProgress(Callback):
    """Save the epoch a run stopped in as still in progress when the run stopped after the epoch's loop ended.

    A run stopped mid-epoch by ``max_steps``, ``max_time`` or an ``EarlyStopping`` leaves Lightning's epoch loop
    as an epoch ends, which counts the epoch processed and completed: a checkpoint saved then (the run's final
    ``last.ckpt``, one saved at that epoch's end) would resume one epoch ahead (the batch sampler keeps its own
    position). A run stopped at an epoch's last batch (``max_steps`` a multiple of the epoch's batches or of
    ``limit_train_batches``, SIGTERM during an epoch's last step) would resume into an empty epoch, which
    Lightning counts as one more, an epoch ahead of the uninterrupted run. Such a checkpoint holds the state of
    one saved within the epoch (at a validation, or by SIGTERM), so that the epoch continues at its next batch,
    or ends and the next one starts.
    """

    def on_save_checkpoint(self, trainer: pl.Trainer, pl_module, checkpoint: dict) -> None:
        _last_batch_ended(trainer, checkpoint.get("loops", {}).get("fit_loop", {}).get("epoch_loop.batch_progress"))
        current = trainer.fit_loop.epoch_progress.current
        if not current.started or current.processed < current.started or current.completed < current.processed:
            return  # saved before or within the epoch, or in its end hooks: Lightning resumes those right
        progress = checkpoint.get("loops", {}).get("fit_loop", {}).get("epoch_progress")
        if progress is None:
            return
        for counts in (progress["current"], progress["total"]):
            counts["processed"] = counts["completed"] = counts["started"] - 1
        checkpoint["epoch"] = progress["current"]["completed"]


def _last_batch_ended(trainer: pl.Trainer, progress: dict | None) -> None:
    """Save a checkpoint saved in the ``on_train_batch_end`` of an epoch's last batch (``checkpoint_every_n_steps``)
    as one saved just after that batch: Lightning resumed the former into the next epoch without ending this one,
    and its epoch counter stayed one behind the uninterrupted run's (a ``max_epochs`` budget one epoch long)."""
    current = trainer.fit_loop.epoch_loop.batch_progress.current
    if progress is None or current.ready < trainer.num_training_batches or current.completed != current.processed - 1:
        return
    for counts in (progress["current"], progress["total"]):
        counts["completed"] = counts["processed"]
