"""One command's life in its run folder: the loggers and callbacks it gives the trainer, the resolved
configuration it records, the checkpoint it saves at the end of ``fit``, and the lines it prints at the end.

:class:`zoo.cli.lightning_cli.ZooCLI` finds the folder (:mod:`zoo.runs.resolution`) and calls these at the matching
LightningCLI hooks; nothing here reads the command line.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from pathlib import Path

from jsonargparse import ArgumentParser, Namespace
from lightning.pytorch import LightningModule, Trainer
from lightning.pytorch.loggers import WandbLogger
from lightning.pytorch.utilities import rank_zero_info

from zoo.data.cache import atomic_write_text
from zoo.runs.checkpoint_file import load_checkpoint
from zoo.runs.devices import moved_devices
from zoo.runs.folders import recorded_config, remove_untrained_run_dir
from zoo.runs.identity import PER_INVOCATION, RUN_PREFIX
from zoo.runs.partial_evaluations import EvaluationsApart, base_metric
from zoo.runs.record import EVALUATION_METRICS, RunRecord, flatten, record_checkpoints
from zoo.runs.wandb_logger import define_summaries, make_wandb_logger, wandb_run_name
from zoo.tasks.schedules import changed_horizon
from zoo.training.callbacks import (
    EvaluationSummaries,
    FinalValidation,
    InterruptedRun,
    checkpoint_callbacks,
    run_checkpoint,
    set_aside_later_checkpoints,
)
from zoo.training.ctrl_c import StopOnCtrlC
from zoo.training.nonfinite_loss import NonFiniteLoss
from zoo.training.predictions import PredictionWriter
from zoo.training.resume import EpochInProgress, LoggingStep, SaveLastEvery, StepSeed

RUN_DIR_ENV = "ZOO_RUN_DIR"  # how the launching process tells DDP child ranks which run folder is theirs


def inherited_run_dir() -> Path | None:
    """The run folder a DDP child rank (``LOCAL_RANK`` > 0) shares with the rank that launched it, or ``None``."""
    inherited = os.environ.get(RUN_DIR_ENV)
    return Path(inherited) if inherited and int(os.environ.get("LOCAL_RANK", "0")) > 0 else None


class RunSession:
    """What ``fit``, ``validate``, ``test`` or ``predict`` writes into ``run_dir``.

    Args:
        run_dir: the run folder (``runs/<name>/``), resolved before anything is instantiated.
        subcommand: ``"fit"``, ``"validate"``, ``"test"`` or ``"predict"``.
        config: the subcommand's resolved configuration (``model``, ``data``, ``trainer`` and the command's own
            options: ``wandb_project``, ``keep_last``, ``checkpoint_every_n_steps``, ``nonfinite_loss``).
    """

    def __init__(self, run_dir: Path, subcommand: str, config: Namespace) -> None:
        self.run_dir, self.subcommand, self.config = run_dir, subcommand, config
        self.record = RunRecord(run_dir, fit=subcommand == "fit", command=subcommand)
        os.environ[RUN_DIR_ENV] = str(run_dir)  # DDP child ranks start later, with this environment

    def trainer_arguments(self, model: LightningModule, callbacks: list, trainer_config: dict) -> dict:
        """The ``callbacks``, ``logger`` and ``default_root_dir`` of the command's ``Trainer``: W&B and the
        local record as loggers; the interrupted-run marker; for ``validate`` and ``test`` the marker of an
        evaluation that is not the run's (part of its split, other decoding settings); for ``fit`` the
        training callbacks and the checkpoints, for ``predict`` the prediction writer.

        Raises:
            ValueError: from the callbacks, for options they refuse (before anything is written).
        """
        callbacks = list(callbacks)
        if self.subcommand == "fit":
            callbacks += self._training_callbacks()
        record_failure = functools.partial(_record_wandb_failure, self.record)
        name = wandb_run_name(self.run_dir.name, getattr(self.config, "run_name", None))
        wandb_logger = make_wandb_logger(self.run_dir, name, self.config.wandb_project, record_failure)
        wandb_logger.command = None if self.subcommand == "fit" else self.subcommand
        self.interrupted = InterruptedRun(self.record)
        callbacks.append(self.interrupted)
        if self.subcommand in ("validate", "test"):
            recorded, current = recorded_config(self.run_dir) or {}, flat_config(self.config)
            callbacks.append(EvaluationsApart([wandb_logger, self.record], recorded, current))
            callbacks.append(EvaluationSummaries(wandb_logger))
        if self.subcommand == "predict":
            recorded, current = recorded_config(self.run_dir) or {}, flat_config(self.config)
            callbacks.append(PredictionWriter(self.run_dir, self.record, recorded, current))
        if self.subcommand == "fit" and trainer_config.get("enable_checkpointing", True) is not False:
            callbacks += checkpoint_callbacks(self.run_dir, model, self.config.keep_last)
        return {"callbacks": callbacks, "logger": [wandb_logger, self.record], "default_root_dir": str(self.run_dir)}

    def _training_callbacks(self) -> list:
        """What every ``fit`` adds: a final validation, per-step seeds and logging steps, the epoch of a run
        stopped mid-epoch kept in progress, the non-finite loss check, Ctrl-C at the end of a step, and a
        ``last.ckpt`` every ``checkpoint_every_n_steps`` if asked."""
        callbacks = [
            FinalValidation(),
            StopOnCtrlC(),
            StepSeed(),
            LoggingStep(),
            EpochInProgress(),
            NonFiniteLoss(self.config.nonfinite_loss, self.record),
        ]
        if self.config.checkpoint_every_n_steps is not None:
            callbacks.append(SaveLastEvery(self.config.checkpoint_every_n_steps))
        return callbacks

    def start_fit(
        self, trainer: Trainer, model: LightningModule, config: dict, config_text: str, devices: dict | None = None
    ) -> None:
        """Before training: record the configuration (``config``: the flat resolved fields; ``config_text``:
        the same as YAML, written to ``config.yaml``) in every logger, and where the run runs (``devices``:
        :func:`zoo.runs.devices.run_devices`, in ``summary.json`` and W&B's config; a resume on another world size
        or effective batch says so), and when resuming, drop what a killed
        process logged after the checkpoint (it is redone) and set aside the checkpoints of later steps (a
        resume from an earlier checkpoint starts another branch of the run); a resume with another budget says
        what that does to a schedule that ends at the last step (:func:`zoo.tasks.schedules.changed_horizon`)."""
        if self.config.get("ckpt_path"):  # first: the record says "running" before W&B takes seconds to start
            step = load_checkpoint(self.config.ckpt_path).get("global_step", 0)
            then = (recorded_config(self.run_dir) or {}).get("trainer.max_steps")
            note = changed_horizon(model.hparams, step, then, trainer.max_steps)
            if note:
                rank_zero_info(f"zoo: resumed at step {step} with trainer.max_steps={trainer.max_steps}: {note}")
            self.record.rewind(step)
            self.record.reopen()
            aside = (
                set_aside_later_checkpoints(self.run_dir, step, self.config.ckpt_path)
                if trainer.is_global_zero
                else None
            )
            if aside:
                rank_zero_info(f"zoo: resumed from step {step}: the checkpoints of later steps are now in {aside}")
            moved = moved_devices(self.record.summary, devices) if devices else None
            if moved:
                rank_zero_info(f"zoo: warning: {moved}")
        self.record_config(trainer, config, config_text, devices)

    def record_config(self, trainer: Trainer, config: dict, config_text: str, devices: dict | None = None) -> None:
        """Give ``config`` to every logger (rank 0 only) and write ``config_text`` to ``config.yaml``;
        ``devices`` goes to ``summary.json`` and, flat under ``run.`` (``run.effective_batch.per_step``), to W&B's
        config, not to
        ``config.json``: it is not part of the run's configuration, which a resume compares."""
        if trainer.global_rank != 0:
            return
        for logger in trainer.loggers:
            logger.log_hyperparams(config)
            if isinstance(logger, WandbLogger):
                if devices:
                    logger.log_hyperparams(flatten({RUN_PREFIX: devices}))
                define_summaries(logger)
        if devices:  # after W&B started: a Ctrl-C while it starts leaves a folder of no record, which is removed
            self.record.record(**devices)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(config_text, self.run_dir / "config.yaml")

    def end_fit(self, trainer: Trainer) -> None:
        """Save ``last.ckpt`` at the final step and close the run as finished. ``ModelCheckpoint`` saves
        "last" at validations only, so steps after the last one would be lost to a later ``--ckpt_path
        last``. Every rank calls this; only rank 0 writes."""
        if (checkpoint := run_checkpoint(trainer)) is not None:
            path = checkpoint.last_model_path or self.run_dir / "checkpoints" / "last.ckpt"
            trainer.save_checkpoint(path, weights_only=False)
        self.finish(trainer, "finished")

    def end_interrupted(self, trainer: Trainer) -> None:
        """After a ``fit`` stopped before its first step with no checkpoint (:attr:`InterruptedRun.nothing_kept`:
        Ctrl-C while the data was set up, or in the sanity check), close its W&B run and remove its folder, which
        holds only the configuration: kept, it would push the next run of the configuration to ``-2``."""
        if trainer.global_rank != 0 or not self.interrupted.nothing_kept:
            return
        trainer.loggers[0].finish()
        if remove_untrained_run_dir(self.run_dir):
            print(f"zoo: run interrupted before its first step; its folder {self.run_dir} is removed", file=sys.stderr)

    def end_test(self, trainer: Trainer, model: LightningModule) -> None:
        """Record sacreBLEU's signature beside each test BLEU (``test_bleu_signature``,
        ``test_bleu_lowercase_signature``: so that scores can be compared), then close."""
        signatures = getattr(model, "bleu_signatures", {})
        if signatures and trainer.global_rank == 0:
            self.record.record(**{f"{metric}_signature": signature for metric, signature in signatures.items()})
            for metric, signature in signatures.items():
                rank_zero_info(f"zoo: {metric} signature {signature}")
        self.finish(trainer, None)

    def finish(self, trainer: Trainer, status: str | None) -> None:
        """Close the W&B run (one per command, even when several run in one process) and print where the run
        is. ``status`` (``"finished"`` after ``fit``; ``None`` keeps the record's) also lists the checkpoints.
        Under ``model.compile`` the command's compilation goes to ``summary.json``'s ``compile.<command>``
        (:meth:`zoo.tasks.compiling.CompiledNetwork.record`)."""
        if trainer.global_rank != 0:
            return
        compiled = getattr(trainer.lightning_module, "compiled", None)
        if compiled is not None:  # under model.compile: the graphs and seconds of this command's compilation
            self.record.record(compile={**self.record.summary.get("compile", {}), self.subcommand: compiled.record()})
        if status is not None:
            record_checkpoints(self.record, run_checkpoint(trainer), status)
        if status == "finished" and (line := final_validation(self.record.summary)):
            rank_zero_info(f"zoo: {line}")
        wandb_logger = trainer.loggers[0]
        wandb_logger.finish()
        files = ["config", "metrics.jsonl", "summary.json"] + ["checkpoints/"] * (self.run_dir / "checkpoints").is_dir()
        rank_zero_info(f"zoo: run folder {self.run_dir} ({', '.join(files)})")
        if os.environ.get("WANDB_MODE") == "offline" and wandb_logger.failure is None:
            runs = f"{shlex.quote(str(wandb_logger.save_dir))}/wandb/offline-run-*"  # a runs_dir with a space
            rank_zero_info(f"zoo: W&B run saved offline; upload it (needs a W&B account) with: wandb sync {runs}")


FRACTIONS = ("acc", "exact_match")  # metrics in [0, 1], shown as percentages


def final_validation(summary: dict) -> str | None:
    """The run's last validation as a line (``validation at step 600: val_loss 0.0042, val_bleu 100.00,
    val_exact_match 100.0%``): what ``summary.json`` holds in ``final``, said at the end of ``fit`` (the README
    promises an exact match the progress bar does not show); ``None`` without a validation."""
    final, steps = summary.get("final", {}), summary.get("final_step", {})
    order = {name: index for index, name in enumerate(EVALUATION_METRICS)}  # loss first, as logged
    keys = [key for key in final if key.startswith("val_") and base_metric(key) == key]  # not partial/val_bleu
    keys.sort(key=lambda key: (order.get(key.removeprefix("val_"), len(order)), key))
    if not keys:
        return None
    shown = [
        f"{key} {100 * final[key]:.1f}%" if key.removeprefix("val_") in FRACTIONS else f"{key} {final[key]:.4g}"
        for key in keys
    ]
    return f"validation at step {steps.get(keys[0])}: {', '.join(shown)}"


def record_data_folder(config: Namespace) -> None:
    """Write a local ``data.path`` into ``config`` (what a run records) as its absolute path, links resolved: a
    relative one says nothing without the folder it was typed in, so that a resume from another folder, or
    from the same folder with another spelling, compares with the folder itself. A hub id stays as it is."""
    init_args = config.get("data.init_args")
    path = init_args.get("path") if init_args is not None else None
    if isinstance(path, str) and path and os.path.exists(path):
        init_args.path = os.path.realpath(path)


def recorded_forms(parser: ArgumentParser, config: Namespace) -> tuple[str, dict]:
    """What ``fit`` records of its resolved ``config``: the text of ``config.yaml`` (``parser``'s YAML of every
    field, the linked ones included) and the flat fields that ``config.json`` and W&B's config hold
    (:func:`flat_config`; W&B's also holds ``run.*``, :meth:`RunSession.record_config`). Both read back through
    the CLI as a config file or as flags (:mod:`zoo.cli.recorded_values`); neither holds what one command did
    (:data:`zoo.runs.identity.PER_INVOCATION`: the checkpoint it started from, its run name)."""
    kept = config.clone()
    for key in PER_INVOCATION:
        kept.pop(key, None)
    return parser.dump(kept, skip_link_targets=False, skip_unset=False), flat_config(config)


def flat_config(config: Namespace) -> dict:
    """The resolved configuration of a subcommand as flat ``{"model.lr": ...}`` fields, without the CLI's own
    bookkeeping (``config``) and what one command did (:data:`zoo.runs.identity.PER_INVOCATION`)."""
    plain = config.clone().as_dict()
    for key in ("config", *PER_INVOCATION):
        plain.pop(key, None)
    return flatten(plain)


def _record_wandb_failure(record: RunRecord, message: str) -> None:
    record.record(wandb_error=message)
