"""Lightning callbacks that keep every number of a run trustworthy: a validation after the last step, an
honest status when a run is interrupted, and the checkpoints a run folder holds."""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback, ModelCheckpoint
from lightning.pytorch.utilities.exceptions import SIGTERMException

from zoo.runs.checkpoint_file import CheckpointFileError, load_checkpoint
from zoo.runs.folders import checkpoint_files
from zoo.runs.wandb_logger import define_summaries


class FinalValidation(Callback):
    """Validate after the last training step, so that every run ends with a validation metric at its final
    step, even when ``max_steps`` is not a multiple of ``val_check_interval`` or shorter than it.

    It asks the loop to stop at the last step (``max_steps``, or the last batch of the last epoch), which makes
    Lightning run the validation it runs before an early stop; a validation due at that step anyway runs once.
    Nothing changes when validation is off (``limit_val_batches=0``, no validation data). An epoch that
    ``check_val_every_n_epoch`` would not validate is validated at the last step all the same (the run ends
    there: its validations by epoch are over).
    """

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        last_step = trainer.max_steps not in (None, -1) and trainer.global_step >= trainer.max_steps
        epoch_loop = trainer.fit_loop.epoch_loop
        last_epoch = trainer.max_epochs not in (None, -1) and trainer.current_epoch + 1 >= trainer.max_epochs
        if last_step or (last_epoch and epoch_loop.batch_progress.is_last_batch):
            trainer.should_stop = True
            trainer.check_val_every_n_epoch = None  # Lightning's check of the epoch, before the stop's validation


class InterruptedRun(Callback):
    """When a run is stopped, mark its record ``interrupted``, list the checkpoints it has, and print in one line
    where the last checkpoint is and the command that resumes it.

    SIGTERM (what SLURM and preemptible machines send) and a first Ctrl-C (:class:`zoo.training.ctrl_c.StopOnCtrlC`):
    Lightning stops at the end of the current step, and a ``last.ckpt`` is saved there first, so ``--ckpt_path
    last`` continues from that step. A second Ctrl-C (a ``KeyboardInterrupt``) can land anywhere in a step, so
    only the checkpoints saved before it are kept.

    Args:
        record: the run's :class:`zoo.runs.record.RunRecord`.

    Attributes:
        nothing_kept: set when the run was stopped before its first step without a checkpoint (a new run, not a
            resumed one): its folder holds only its configuration
            (:meth:`zoo.training.session.RunSession.end_interrupted`).
    """

    def __init__(self, record) -> None:
        self.record = record
        self.nothing_kept = False

    def on_exception(self, trainer: pl.Trainer, pl_module, exception: BaseException) -> None:
        if not isinstance(exception, (KeyboardInterrupt, SIGTERMException)):
            return
        run_dir = Path(self.record.run_dir)
        if isinstance(exception, SIGTERMException) and run_checkpoint(trainer) is not None and trainer.global_step:
            trainer.save_checkpoint(run_dir / "checkpoints" / "last.ckpt", weights_only=False)  # every rank
        if trainer.global_rank != 0:
            return
        checkpoints = checkpoint_files(run_dir)
        best = getattr(run_checkpoint(trainer), "best_model_path", "")
        checkpoints.update({"best": best} if best and Path(best).is_file() else {})
        self.record.record(status="interrupted", checkpoints=checkpoints)
        self.nothing_kept = not checkpoints and trainer.global_step == 0 and trainer.ckpt_path is None
        if "last" in checkpoints:
            saved = load_checkpoint(checkpoints["last"]).get("global_step", 0)
            lost = f" (steps after {saved} are lost)" if saved < trainer.global_step else ""
            command = ["python", "-m", "zoo", "fit", "--config", str(run_dir / "config.yaml"), "--ckpt_path", "last"]
            print(
                f"zoo: run interrupted at step {trainer.global_step}; {run_dir / 'checkpoints' / 'last.ckpt'} holds "
                f"step {saved}{lost}; resume it with: {shlex.join(command)}",
                file=sys.stderr,
            )
        elif not self.nothing_kept:
            print(
                f"zoo: run interrupted at step {trainer.global_step} before its first checkpoint; {run_dir} has its "
                f"log but nothing to resume",
                file=sys.stderr,
            )


class EvaluationSummaries(Callback):
    """:func:`define_summaries` of a ``validate`` or ``test`` command (``fit=False``), when its evaluation
    starts: not before, so that a command that fails earlier (a data set without a test split) starts no W&B
    run."""

    def __init__(self, logger) -> None:
        self.logger, self.defined = logger, False

    def _define(self, trainer, pl_module) -> None:
        if not self.defined and trainer.global_rank == 0:
            define_summaries(self.logger, fit=False)
        self.defined = True

    on_validation_start = on_test_start = _define


class RunCheckpoint(ModelCheckpoint):
    """Lightning's ``ModelCheckpoint`` in a run folder's ``checkpoints/``:

    - a file of its own name is overwritten, never versioned (``last-v1.ckpt``, ``best-step9-v1.ckpt``): a run
      resumed from an earlier checkpoint redoes those steps, and ``--ckpt_path last`` reads ``last.ckpt``;
    - it follows its run folder when the folder was moved or copied: the checkpoint's recorded ``dirpath``
      and the paths under it (the best so far, the last) are read as paths in the folder it is now in. Lightning
      would keep only the best path, pointing to the old place, and forget the best score, so that the first
      validation after the resume would be the "best" whatever its score.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, enable_version_counter=False, **kwargs)

    def load_state_dict(self, state_dict: dict) -> None:
        old, new = state_dict.get("dirpath"), self.dirpath
        if old and new and old != new:
            state_dict = _moved(state_dict, old, new)
        super().load_state_dict(state_dict)


def _moved(state: dict, old: str, new: str) -> dict:
    """A ``ModelCheckpoint`` state with ``dirpath`` ``old`` as the same files under ``new``."""

    def move(path):
        inside = isinstance(path, str) and path.startswith(old.rstrip(os.sep) + os.sep)
        return os.path.join(new, os.path.relpath(path, old)) if inside else path

    paths = {key: move(state.get(key)) for key in ("best_model_path", "kth_best_model_path", "last_model_path")}
    best_k = {move(path): score for path, score in (state.get("best_k_models") or {}).items()}
    return {**state, **paths, "best_k_models": best_k, "dirpath": new}


class BestAndLast(RunCheckpoint):
    """A :class:`RunCheckpoint` by a monitored metric, with ``last.ckpt`` saved at every validation:
    Lightning 2.6 saves "last" only at a validation that also saved a best checkpoint, so once a run stops
    improving a kill -9 would lose every step since its last improvement."""

    def on_validation_end(self, trainer: pl.Trainer, pl_module) -> None:
        skip = self._should_skip_saving_checkpoint(trainer) or self._should_save_on_train_epoch_end(trainer)
        super().on_validation_end(trainer, pl_module)
        if not skip and self.save_last and self._last_global_step_saved != trainer.global_step:
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))


def set_aside_later_checkpoints(run_dir: Path, step: int, resumed_from: str) -> Path | None:
    """Before a run resumes from a checkpoint at ``step`` that is not its latest (``--ckpt_path
    checkpoints/step3.ckpt`` of a run trained to step 9), move the checkpoints of the steps it abandons
    (``best-step9.ckpt``, ``step6.ckpt``, a ``last.ckpt`` of a later step) to
    ``checkpoints/abandoned-after-step<step>-<time>/``: they are another branch of the run, which the resumed one
    would overwrite in part and list beside its own. Nothing is deleted.

    Returns:
        The folder they went to, or ``None`` if there were none.
    """
    folder = Path(run_dir) / "checkpoints"
    later = [
        path
        for path in folder.glob("*.ckpt")
        if (match := re.fullmatch(r"(?:best-)?step(\d+)(?:-v\d+)?", path.stem)) and int(match.group(1)) > step
    ]
    last = folder / "last.ckpt"
    if last.is_file() and os.path.realpath(last) != os.path.realpath(resumed_from):
        try:
            newer = load_checkpoint(str(last)).get("global_step", 0) > step
        except CheckpointFileError:  # damaged (a kill -9 while it was written): set aside too, never deleted
            newer = True
        if newer:
            later.append(last)
    if not later:
        return None
    aside = folder / f"abandoned-after-step{step}-{time.strftime('%Y%m%d-%H%M%S')}"
    aside.mkdir()
    for path in later:
        path.rename(aside / path.name)
    return aside


def run_checkpoint(trainer: pl.Trainer) -> BestAndLast | None:
    """The run's own checkpoint callback (``best-step<S>.ckpt``, ``last.ckpt`` in ``checkpoints/``), or ``None``
    when checkpointing is off. Lightning's ``trainer.checkpoint_callback`` is the first ``ModelCheckpoint`` of
    the callbacks, which may be one a user added (``--trainer.callbacks+=ModelCheckpoint``), saving elsewhere
    by another metric."""
    return next((c for c in trainer.checkpoint_callbacks if isinstance(c, BestAndLast)), None)


def checkpoint_callbacks(run_dir: Path, task, keep_last: int = 0) -> list[ModelCheckpoint]:
    """The checkpoints of a ``fit`` in ``run_dir/checkpoints``: ``best-step<S>.ckpt`` by the task's ``monitor``
    metric and ``last.ckpt``; with ``keep_last`` N, also ``step<S>.ckpt`` at each validation, the newest N kept
    (Lightning ranks them by the evaluated step, which :class:`zoo.tasks.TaskModule` logs as ``step``)."""
    folder = run_dir / "checkpoints"
    callbacks = [
        BestAndLast(
            dirpath=folder,
            filename="best-step{step}",
            auto_insert_metric_name=False,
            monitor=task.monitor,
            mode=task.monitor_mode,
            save_last=True,
        )
    ]
    if keep_last:
        callbacks.append(
            RunCheckpoint(folder, "step{step}", "step", save_top_k=keep_last, mode="max", auto_insert_metric_name=False)
        )
    return callbacks
