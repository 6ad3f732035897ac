"""Checks of a command's resolved configuration that neither jsonargparse nor Lightning makes before training:
values Lightning accepts and then fails on mid-run (or reads as something else), fields the zoo sets itself,
and options of the zoo's own. Each bad value is one line naming the field, the value and what is valid, raised
before the run folder exists."""

from __future__ import annotations

import re

from jsonargparse import Namespace

from zoo.cli.command_line import COMMAND_LINE, MAX_SEED, flag_values
from zoo.cli.empty_values import empty_value_problem
from zoo.cli.knobs import bool_fields
from zoo.registry import SCHEDULES
from zoo.runs.checkpoint_file import import_class
from zoo.tasks.schedules import needs_total_steps


class ConfigError(Exception):
    """A bad configuration, reported in one line before training starts."""


RUN_NAME = re.compile(r"[A-Za-z0-9._-]+")
MAX_RUN_NAME = 200  # a file name is at most 255 bytes, and a rerun adds "-2", "-3", ...
VALID_SEED = (
    f"it must be an integer in [0, {MAX_SEED}] (the run's seed, in its name), or true (a random seed, recorded in "
    f"the run's config)"
)

# trainer fields that Lightning takes without a check and then divides by (a ZeroDivisionError mid-run), reads
# a negative value of as "off" (gradient_clip_val=-1: no clipping), or never acts on (log_every_n_steps=0 logs
# no training metric); the smallest valid value, and what it means
TRAINER_MINIMUMS = {
    "accumulate_grad_batches": (1, "an integer >= 1 (batches per optimiser step)"),
    "check_val_every_n_epoch": (1, "an integer >= 1, or null (validate by val_check_interval steps only)"),
    "gradient_clip_val": (0, "a number >= 0 (0 or null: no clipping)"),
    "log_every_n_steps": (1, "an integer >= 1 (optimiser steps between logged training metrics)"),
    "min_steps": (0, "an integer >= 0, or null"),
    "min_epochs": (0, "an integer >= 0, or null"),
    "fast_dev_run": (0, "true, false or a number of batches >= 1"),
}

# trainer fields the zoo sets itself for every run (RunSession.trainer_arguments), so a user's value would be
# silently ignored, and what to use instead
ZOO_SETS = {
    "logger": "every run logs to W&B and to its run record; WANDB_MODE=disabled turns W&B off",
    "default_root_dir": "every run's files go to its run folder; --runs_dir picks where run folders go",
}

# fit budgets of nothing: Lightning "fits" zero steps and the run is recorded as finished with no checkpoint
NO_TRAINING = {
    "max_steps": "a positive number of steps, or -1 (no step limit)",
    "max_epochs": "a positive number of epochs, or -1 (no epoch limit)",
    "limit_train_batches": "a positive number of batches, or a fraction of the epoch in (0, 1]",
}


def check_options(config: Namespace, subcommand: str) -> None:
    """Refuse bad values of the command's own options and of the trainer's, before anything is created.

    Args:
        config: the subcommand's resolved configuration.
        subcommand: ``fit``, ``validate``, ``test`` or ``predict``.

    Raises:
        ConfigError: an empty option or field that names a folder, file or name
            (:func:`zoo.cli.empty_values.empty_value_problem`), a bool field set to null, a ``run_name`` that is
            not a plain folder name, a trainer field of :data:`TRAINER_MINIMUMS` below its minimum, one of
            :data:`ZOO_SETS` set, ``min_steps`` above ``max_steps`` (or ``min_epochs`` above ``max_epochs``), a
            ``limit_*_batches`` that is negative or
            a fraction above 1, a ``val_check_interval`` that is not positive,
            ``checkpoint_every_n_steps`` or ``keep_last`` asked for with ``trainer.enable_checkpointing=false``,
            ``--init_weights`` typed for a command other than ``fit``; for
            ``fit``, a budget of no training (:data:`NO_TRAINING`) or a callback that monitors a metric the
            task does not log.
    """
    if problem := empty_value_problem(config):
        raise ConfigError(problem)
    _check_bool_fields(config)
    name = config.get("run_name")
    if name is not None and (not RUN_NAME.fullmatch(name) or name in (".", "..") or len(name) > MAX_RUN_NAME):
        raise ConfigError(
            f"run_name={name if len(name) <= 60 else name[:60] + '...'!r} is not valid; it must be a folder name of "
            f"at most {MAX_RUN_NAME} letters, digits, '.', '_' and '-' (the folder goes under runs_dir)"
        )
    _check_trainer_fields(config.trainer)
    _check_checkpoint_options(config)
    if subcommand != "fit" and flag_values(COMMAND_LINE, "--init_weights"):  # a run's config.yaml may hold it
        raise ConfigError(
            f"init_weights is an option of `fit` (a new run from a checkpoint's weights); "
            f"`{subcommand}` evaluates --ckpt_path's weights"
        )
    if subcommand == "fit":
        _check_budget(config.trainer)
        _check_schedule_horizon(config)
        _check_monitors(config)


def _check_trainer_fields(trainer: Namespace) -> None:
    """Refuse the :data:`TRAINER_MINIMUMS` fields below their minimum, any value of the :data:`ZOO_SETS`
    fields, minimums above maximums and a ``val_check_interval`` that is not positive."""
    for field, (minimum, valid) in TRAINER_MINIMUMS.items():
        value = trainer.get(field)
        if isinstance(value, (int, float)) and value < minimum:
            raise ConfigError(f"trainer.{field}={value} is not valid; it must be {valid}")
    for field, instead in ZOO_SETS.items():
        if trainer.get(field) is not None:
            raise ConfigError(f"trainer.{field} is set by zoo, not from the command line or a config; {instead}")
    for unit in ("steps", "epochs"):
        low, high = trainer.get(f"min_{unit}"), trainer.get(f"max_{unit}")
        if low is not None and high is not None and high >= 0 and low > high:
            raise ConfigError(
                f"trainer.min_{unit}={low} is above trainer.max_{unit}={high}; it must be at most max_{unit}"
            )
    for split in ("train", "val", "test", "predict"):
        _check_batch_limit(f"limit_{split}_batches", trainer.get(f"limit_{split}_batches"))
    _check_devices(trainer.get("devices"))
    _check_duration("max_time", trainer.get("max_time"))
    interval = trainer.get("val_check_interval")
    if isinstance(interval, float) and 0 < interval < 1 and trainer.get("check_val_every_n_epoch") is None:
        raise ConfigError(
            f"trainer.val_check_interval={interval} is a fraction of an epoch, which Lightning takes only with "
            f"trainer.check_val_every_n_epoch set (this config validates by steps: it is null); give a number of "
            f"training batches, or set trainer.check_val_every_n_epoch=1"
        )
    not_a_duration = isinstance(interval, str) and not DURATION.fullmatch(interval.strip())  # 'nan', 'abc'
    if not_a_duration or isinstance(interval, (int, float)) and not isinstance(interval, bool) and not interval > 0:
        raise ConfigError(
            f"trainer.val_check_interval={interval!r} is not valid; it must be a positive number of training "
            f"batches (steps, but with trainer.accumulate_grad_batches), a fraction of an epoch in (0, 1] with "
            f"trainer.check_val_every_n_epoch set, or a duration DD:HH:MM:SS"
        )


DURATION = re.compile(r"\d+:\d{1,2}:\d{1,2}:\d{1,2}")  # Lightning's DD:HH:MM:SS


def _check_duration(field: str, value: object) -> None:
    """Refuse a ``trainer.max_time`` string that is not Lightning's ``DD:HH:MM:SS`` (a mapping of units, or a
    string that is, Lightning checks)."""
    if isinstance(value, str) and not DURATION.fullmatch(value.strip()):
        raise ConfigError(
            f"trainer.{field}={value!r} is not valid; it must be a duration DD:HH:MM:SS (00:01:30:00 for an hour "
            f"and a half) or a mapping such as {{hours: 1, minutes: 30}}"
        )


def _check_devices(value: object) -> None:
    """Refuse a ``trainer.devices`` count Lightning refuses in words that name no valid value: 0 or below -1."""
    count = int(value) if isinstance(value, str) and value.strip().lstrip("-").isdigit() else value
    if isinstance(count, int) and not isinstance(count, bool) and (count == 0 or count < -1):
        raise ConfigError(
            f"trainer.devices={value!r} is not valid; it must be a positive number of devices, -1 or 'auto' (all "
            f"of them), or a list of device indices such as [0, 1]"
        )


def _check_batch_limit(field: str, value: object) -> None:
    """Refuse a ``limit_*_batches`` that Lightning refuses (as ``_determine_batch_limits`` reads it): a
    negative number, or a fraction above 1 that is not a whole number of batches."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and (value < 0 or isinstance(value, float) and value > 1 and not value.is_integer()):
        raise ConfigError(
            f"trainer.{field}={value} is not valid; it must be a number of batches (an integer >= 0) or a "
            f"fraction of them in [0.0, 1.0]"
        )


def _check_checkpoint_options(config: Namespace) -> None:
    every, keep = config.get("checkpoint_every_n_steps"), config.get("keep_last", 0)  # their types say the range
    if config.trainer.get("enable_checkpointing", True) is False:
        for field, value in (("checkpoint_every_n_steps", every), ("keep_last", keep or None)):
            if value is not None:
                raise ConfigError(f"{field}={value} needs checkpoints, but trainer.enable_checkpointing=false")


def _check_budget(trainer: Namespace) -> None:
    """Refuse a ``fit`` that would train nothing (a :data:`NO_TRAINING` field at 0)."""
    for field, valid in NO_TRAINING.items():
        value = trainer.get(field)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            raise ConfigError(
                f"trainer.{field}={value}: fit would train nothing; it must be {valid} (to evaluate a checkpoint "
                f"without training, use `zoo validate` or `zoo test` with --ckpt_path)"
            )
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < -1:
            raise ConfigError(f"trainer.{field}={value} is not valid; it must be {valid}")


def _check_schedule_horizon(config: Namespace) -> None:
    """Refuse a schedule that decays over the run's steps (``cosine``) when the budget has no last step: no
    ``max_steps`` and no ``max_epochs`` (a ``max_time`` alone, or ``max_epochs=-1``)."""
    trainer, model = config.trainer, config.get("model")
    schedule = model.get("init_args", Namespace()).get("schedule") if isinstance(model, Namespace) else None
    if not isinstance(schedule, str) or schedule not in SCHEDULES.names() or not needs_total_steps(schedule):
        return
    steps, epochs, time = trainer.get("max_steps", -1), trainer.get("max_epochs"), trainer.get("max_time")
    if steps in (None, -1) and (epochs == -1 or (epochs is None and time is not None)):
        budget = f"trainer.max_time={time!r} alone" if time is not None else "trainer.max_epochs=-1"
        free = ", ".join(name for name in SCHEDULES.names() if not needs_total_steps(name))
        raise ConfigError(
            f"model.schedule={schedule!r} decays over the run's steps, but {budget} gives no last step; set "
            f"trainer.max_steps (or trainer.max_epochs), or use a schedule without an end: {free}"
        )


def _section_class(config: Namespace, group: str) -> type | None:
    """The class of ``<group>.class_path`` (``model``: the task, ``data``: the data module), or ``None`` when
    the config has none."""
    section = config.get(group)
    if not section or not isinstance(section.get("class_path"), str):
        return None
    return import_class(section.class_path)


def _check_monitors(config: Namespace) -> None:
    """Refuse a callback (``EarlyStopping``, ``ModelCheckpoint``, ...) whose ``monitor`` the task never logs:
    Lightning finds out only at the first validation, after the training before it."""
    task, callbacks = _section_class(config, "model"), config.trainer.get("callbacks") or []
    if task is None or not hasattr(task, "logged_metrics"):
        return
    logged = task.logged_metrics()
    for callback in callbacks if isinstance(callbacks, list) else [callbacks]:
        init_args = callback.get("init_args") if isinstance(callback, Namespace) else None
        monitor = init_args.get("monitor") if isinstance(init_args, Namespace) else None
        if monitor is not None and monitor not in logged:
            kind = str(callback.get("class_path")).rpartition(".")[2]
            raise ConfigError(
                f"trainer.callbacks: {kind}(monitor={monitor!r}) monitors a metric that {task.__name__} does not "
                f"log; it logs: {', '.join(logged)}"
            )


def _check_bool_fields(config: Namespace) -> None:
    """Refuse ``null`` for a model or data field typed ``bool`` (jsonargparse lets it through, and the code would
    read it as false, under the default's run identity)."""
    for group in ("model", "data"):
        if (cls := _section_class(config, group)) is None:
            continue
        for field in bool_fields(cls):
            value = config[group].init_args.get(field, False)
            if not isinstance(value, bool):
                shown = "null" if value is None else repr(value)
                raise ConfigError(f"{group}.{field}={shown} is not valid; it must be true or false")


def check_val_check_interval(trainer: Namespace, train_batches: int, ranks: int) -> None:
    """Refuse a ``val_check_interval`` above an epoch's training batches (``train_batches``, over ``ranks``
    ranks, after ``limit_train_batches``) when validation is by epoch: Lightning refuses it only once ``fit``
    has started, after the run folder and its record.

    Raises:
        ConfigError: naming the interval, the batches of an epoch and what to do.
    """
    interval, every = trainer.get("val_check_interval"), trainer.get("check_val_every_n_epoch", 1)
    if not isinstance(interval, int) or isinstance(interval, bool) or every is None:
        return
    batches, limit = train_batches // ranks, trainer.get("limit_train_batches")
    if isinstance(limit, float):
        batches = int(batches * limit)
    elif isinstance(limit, int) and not isinstance(limit, bool):
        batches = min(batches, limit)
    if interval > batches:
        each = " per device" if ranks > 1 else ""
        raise ConfigError(
            f"trainer.val_check_interval={interval} is more than the {batches} training batches of an epoch{each} "
            f"(validation is by epoch: trainer.check_val_every_n_epoch={every}); lower it, or set "
            f"trainer.check_val_every_n_epoch=null to count batches across epochs"
        )
