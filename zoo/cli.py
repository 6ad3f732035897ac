"""The command line: a ``LightningCLI`` (jsonargparse) with ``fit``, ``validate``, ``test`` and ``predict``.

Every run gets a folder under ``--runs_dir`` (default ``runs/``) named after what differs between runs,
holding the local run record, the W&B files and the checkpoints. ``fit --ckpt_path last`` resumes the most
recent run of the same name: weights, optimiser, schedule and W&B run.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import signal
import sys
from pathlib import Path

from jsonargparse import Namespace
from lightning.fabric.utilities.exceptions import MisconfigurationException
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI
from lightning.pytorch.loggers import WandbLogger
from lightning.pytorch.utilities import rank_zero_info
from lightning.pytorch.utilities.exceptions import SIGTERMException

from zoo.callbacks import FinalValidation, InterruptedRun, checkpoint_callbacks
from zoo.data import ZooDataModule
from zoo.knob_help import field_names, knob_help
from zoo.nonfinite import NonFiniteAction, NonFiniteLoss, NonFiniteLossError
from zoo.precision import MatmulPrecision, set_matmul_precision
from zoo.predictions import PredictionWriter
from zoo.progress import StepProgressBar, silence_noise
from zoo.resume import SaveLastEvery, StepSeed
from zoo.run_folders import RunFolderError, remove_unused_run_dir
from zoo.run_resolution import check_loadable, load_checkpoint, resolve_run_dir
from zoo.tasks import TaskModule
from zoo.tracking import RunRecord, define_summaries, flatten, make_wandb_logger, record_checkpoints, wandb_mode
from zoo.yaml_files import YAMLFileError, load_yaml

RUN_DIR_ENV = "ZOO_RUN_DIR"  # how the launching process tells DDP child ranks which run folder is theirs


class ConfigError(Exception):
    """A bad configuration, reported in one line before training starts."""


class ZooArgumentParser(LightningArgumentParser):
    """Parse errors in a few lines (the field and what is wrong), not the whole usage text."""

    def format_help(self) -> str:
        """The help, with the epilog (the knob table of :func:`zoo.knob_help.knob_help`) kept as laid out."""
        epilog, self.epilog = self.epilog, None
        try:
            text = super().format_help()
        finally:
            self.epilog = epilog
        return text if not epilog else f"{text}\n{epilog}\n"

    def error(self, message: str, ex: Exception | None = None):
        choice = _bad_choice(str(message)) or _unknown_option(str(message)) or _bad_type(str(message))
        if choice:
            sys.stderr.write(f"zoo: error: {choice}\n")
            self.exit(2)
        lines = [line for line in str(message).splitlines() if line.strip() and not line.startswith("Given value")]
        text = "\n  ".join(lines[:6])
        sys.stderr.write(f"zoo: error: {text}\n(python -m zoo fit --help lists every field and its type)\n")
        self.exit(2)


SUBCOMMANDS = ("fit", "validate", "test", "predict")
_COMMAND_LINE: list[str] = []  # the arguments of this command, for messages that need the field's group
_UNKNOWN_OPTION = re.compile(r"^Option '(\w+)' is not accepted")


def _unknown_option(message: str) -> str | None:
    """jsonargparse's message for an unknown model or data field, with the group and the nearest valid names."""
    match = _UNKNOWN_OPTION.search(message.strip())
    if match is None:
        return None
    name = match.group(1)
    groups = [g for g in ("model", "data") if any(a.startswith(f"--{g}.{name}") for a in _COMMAND_LINE)] or ["model"]
    near = difflib.get_close_matches(name, field_names(groups[0]), n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(f'{groups[0]}.{n}' for n in near)}?" if near else "--help lists every field"
    return f"{groups[0]}.{name} is not a field; {hint}"


# the Literal options of the command itself, not of the model
TOP_LEVEL_CHOICES = ("nonfinite_loss", "matmul_precision")
_LITERAL_ERROR = re.compile(r'Parser key "(\w+)":\s+Expected a typing\.Literal\[(.*)\]\. Got value: (.*)$', re.S)


_TYPE_ERROR = re.compile(r'^Parser key "([\w.]+)":.*Expected a <class \'', re.S)
_TYPE_WORDS = {"float": "a number", "int": "an integer", "bool": "true or false", "NoneType": "null (unset)"}


def _bad_type(message: str) -> str | None:
    """jsonargparse's message for a value of the wrong type (``--model.dropout=abc``; several lines for a
    field that may also be unset), as one line with the field, the value and what is valid."""
    match = _TYPE_ERROR.search(message.strip())
    if match is None:
        return None
    key = match.group(1)
    kinds = dict.fromkeys(_TYPE_WORDS.get(t, t) for t in re.findall(r"Expected a <class '(\w+)'>", message))
    named = [a.split("=", 1) + [""] for a in _COMMAND_LINE if _names(a.split("=")[0].lstrip("-"), key)]
    field, value = (named[-1][0].lstrip("-"), named[-1][1]) if named else (key if "." in key else f"model.{key}", "")
    if not value:
        got = re.search(r"Got value: (.*)$", message.strip(), re.M)
        value = got.group(1).strip() if got else "?"
    return f"{field}={value!r} is not valid; it must be {' or '.join(kinds)}"


def _names(option: str, key: str) -> bool:
    """Whether the command-line option ``option`` (``model.dropout``) sets the parser key ``key`` (``dropout``)."""
    return option == key or option.endswith(f".{key}")


def _bad_choice(message: str) -> str | None:
    """jsonargparse's message for a value outside a ``Literal`` knob, in the project's one-line form (the
    ``Literal`` knobs are the model's: pe, norm, norm_position, activation, schedule, pooling)."""
    match = _LITERAL_ERROR.search(message.strip())
    if match is None:
        return None
    key, choices, value = match.groups()
    field = key if key in TOP_LEVEL_CHOICES else f"model.{key}"
    return f"{field}={value.strip()!r} is not valid; choose one of: {choices}"


class ZooCLI(LightningCLI):
    """``python -m zoo {fit,validate,test,predict} --config configs/<variant>/<data>.yaml [--model.pe=learned ...]``."""

    def __init__(self, args=None, run: bool = True) -> None:
        self.run_dir: Path | None = None
        super().__init__(
            TaskModule,
            ZooDataModule,
            subclass_mode_model=True,
            subclass_mode_data=True,
            save_config_callback=None,
            auto_configure_optimizers=False,
            seed_everything_default=1,
            trainer_defaults={"use_distributed_sampler": False},
            parser_kwargs={
                "description": f"Train and evaluate: fit, validate, test, predict (below). The other commands: "
                f"{', '.join(TOOLS)} (python -m zoo <command> --help).",
                "prog": "python -m zoo",  # not "__main__.py" in the usage lines
                "allow_abbrev": False,  # a shortened key (--trainer.max_step) must not set a field silently
                **{sub: {"epilog": knob_help(), "allow_abbrev": False} for sub in SUBCOMMANDS},
            },
            parser_class=ZooArgumentParser,
            args=args,
            run=run,
        )

    def _parse_ckpt_path(self) -> None:
        """Keep the command's config as given: LightningCLI would overwrite the model's fields with the
        checkpoint's hyperparameters, silently dropping a changed ``--model.lr``. zoo instead compares the
        command with the run's record and refuses a difference in one line (:meth:`_resolve_run_dir`)."""

    def add_arguments_to_parser(self, parser) -> None:
        parser.link_arguments("data.num_tokens", "model.init_args.vocab_size", apply_on="instantiate")
        parser.add_argument("--runs_dir", type=str, default="runs", help="Where run folders go.")
        parser.add_argument("--run_name", type=str | None, default=None, help="Override the automatic run name.")
        parser.add_argument("--wandb_project", type=str, default="zoo", help="The W&B project.")
        parser.add_argument(
            "--checkpoint_every_n_steps",
            type=int | None,
            default=None,
            help="Also save checkpoints/last.ckpt every N optimiser steps (default: at each validation and at the "
            "end), so that a killed run loses at most N steps.",
        )
        parser.add_argument(
            "--nonfinite_loss",
            type=NonFiniteAction,
            default="stop",
            help="On a NaN or infinite loss: stop before the optimiser step (the last checkpoint stays good), or "
            "skip the batch and go on.",
        )
        parser.add_argument(
            "--matmul_precision",
            type=MatmulPrecision,
            default="highest",
            help="float32 matmuls: highest (float32), high (TF32 on CUDA), medium (also bfloat16 inputs); "
            "torch.set_float32_matmul_precision. Recorded, but not part of the run's identity.",
        )
        parser.add_argument(
            "--keep_last",
            type=int,
            default=0,
            help="fit: also keep the checkpoints of the last N validations (for `python -m zoo average`).",
        )

    # -- run folder ----------------------------------------------------------------------------
    def _config(self) -> Namespace:
        return self.config[self.subcommand] if self.subcommand else self.config

    def _resolve_run_dir(self, config: Namespace) -> Path | None:
        inherited = os.environ.get(RUN_DIR_ENV)
        if inherited and int(os.environ.get("LOCAL_RANK", "0")) > 0:
            return Path(inherited)
        return resolve_run_dir(self.subcommand, config, flatten(_plain(config)))

    def before_instantiate_classes(self) -> None:
        if self.subcommand is None:
            return
        try:
            wandb_mode()  # a W&B account problem stops the command before anything is created
        except ValueError as error:
            raise ConfigError(str(error)) from None
        _check_fit_options(self._config())  # before the run folder exists
        set_matmul_precision(self._config().matmul_precision)
        if self._config().trainer.get("fast_dev_run"):
            # Lightning's smoke test: no run folder, checkpoint or record that a later command could pick up
            print("zoo: fast_dev_run is a smoke test: nothing is saved (no run folder, checkpoint or W&B run)")
            return
        try:
            self.run_dir = self._resolve_run_dir(self._config())
        except OSError as error:  # runs_dir is a file, or cannot be created
            raise ConfigError(
                f"runs_dir={self._config().runs_dir!r}: no run folder can be made there ({error.strerror})"
            ) from None
        if self.run_dir is not None:
            os.environ[RUN_DIR_ENV] = str(self.run_dir)

    def instantiate_classes(self) -> None:
        try:
            super().instantiate_classes()
            self.model.check_data(self.datamodule)
            self.datamodule.check_batches(self.trainer.num_devices * self.trainer.num_nodes)
            if self.subcommand == "test" and "test" not in self.datamodule.splits:
                raise ValueError(
                    f"data.path={self.datamodule.path!r} has no test split; `test` needs one "
                    f"(`python -m zoo validate` evaluates the validation split)"
                )
        except (ValueError, FileNotFoundError, ConnectionError, MisconfigurationException, ImportError) as error:
            remove_unused_run_dir(self.run_dir)  # e.g. a trainer value Lightning refuses
            raise ConfigError(str(_root_cause(error))) from error
        except BaseException:
            remove_unused_run_dir(self.run_dir)  # whatever failed, a run that never started leaves no folder
            raise

    def instantiate_trainer(self, **kwargs):
        trainer_config = self._get(self.config_init, "trainer", default={})
        callbacks = list(trainer_config.get("callbacks") or [])
        if trainer_config.get("enable_progress_bar", True) is not False:
            callbacks.append(StepProgressBar())
        if self.run_dir is None:
            smoke_test = trainer_config.get("fast_dev_run")
            if self.subcommand == "predict" and self._config().get("ckpt_path") and not smoke_test:
                # a checkpoint outside a run folder: the predictions go next to it
                callbacks.append(PredictionWriter(Path(self._config().ckpt_path).resolve().parent))
            return super().instantiate_trainer(callbacks=callbacks, logger=False, **kwargs)
        self.record = RunRecord(self.run_dir)
        if self.subcommand == "fit":
            callbacks += self._training_callbacks(trainer_config)  # raises before anything is written
        record_failure = functools.partial(_record_wandb_failure, self.record)
        wandb_logger = make_wandb_logger(self.run_dir, self.run_dir.name, self._config().wandb_project, record_failure)
        loggers = [wandb_logger, self.record]
        callbacks.append(InterruptedRun(self.record))
        if self.subcommand == "predict":
            callbacks.append(PredictionWriter(self.run_dir, self.record))
        if self.subcommand == "fit" and trainer_config.get("enable_checkpointing", True) is not False:
            callbacks += checkpoint_callbacks(self.run_dir, self.model, self._config().keep_last)
        return super().instantiate_trainer(
            callbacks=callbacks, logger=loggers, default_root_dir=str(self.run_dir), **kwargs
        )

    def _training_callbacks(self, trainer_config) -> list:
        """What every ``fit`` adds: a final validation, per-step seeds, the non-finite loss check, and a
        ``last.ckpt`` every ``checkpoint_every_n_steps`` if asked (checked by :func:`_check_fit_options`)."""
        config = self._config()
        callbacks = [FinalValidation(), StepSeed(), NonFiniteLoss(config.nonfinite_loss, self.record)]
        if config.checkpoint_every_n_steps is not None:
            callbacks.append(SaveLastEvery(config.checkpoint_every_n_steps))
        return callbacks

    # -- around the subcommands ----------------------------------------------------------------
    def _record_config(self) -> None:
        if self.trainer.global_rank != 0:
            return
        config = self._config()
        config.model.init_args.vocab_size = self.model.hparams.vocab_size  # the linked value, for the record
        flat = flatten(_plain(config))
        for logger in self.trainer.loggers:
            logger.log_hyperparams(flat)
            if isinstance(logger, WandbLogger):
                define_summaries(logger)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        text = self._parser(self.subcommand).dump(config, skip_link_targets=False, skip_unset=False)
        (self.run_dir / "config.yaml").write_text(text)

    def before_fit(self) -> None:
        if self.run_dir is not None:
            self._record_config()
            if self._config().get("ckpt_path"):  # what a killed process logged after this checkpoint is redone
                self.record.rewind(load_checkpoint(self._config().ckpt_path).get("global_step", 0))

    def after_fit(self) -> None:
        if self.run_dir is not None and self.trainer.checkpoint_callback is not None:
            # ModelCheckpoint saves "last" at validation only; steps after the last validation would be lost
            # to a later --ckpt_path last. Every rank calls this; only rank 0 writes.
            self.trainer.save_checkpoint(
                self.trainer.checkpoint_callback.last_model_path or self.run_dir / "checkpoints" / "last.ckpt",
                weights_only=False,
            )
        self._finish("finished")

    def after_validate(self) -> None:
        self._finish(None)

    def after_test(self) -> None:
        signature = getattr(getattr(self.model, "corpus", None), "signature", None)
        if signature and self.run_dir is not None and self.trainer.global_rank == 0:
            self.record.record(test_bleu_signature=signature)  # sacreBLEU's, so that scores can be compared
            rank_zero_info(f"zoo: test BLEU signature {signature}")
        self._finish(None)

    def after_predict(self) -> None:
        self._finish(None)

    def _finish(self, status: str | None) -> None:
        if self.run_dir is None or self.trainer.global_rank != 0:
            return
        if status is not None:
            record_checkpoints(self.record, self.trainer.checkpoint_callback, status)
        wandb_logger = self.trainer.loggers[0]
        wandb_logger.finish()  # one W&B run per command, even when several run in one process
        rank_zero_info(f"zoo: run folder {self.run_dir} (config, metrics.jsonl, summary.json, checkpoints/)")
        if os.environ.get("WANDB_MODE") == "offline" and wandb_logger.failure is None:
            runs = f"{wandb_logger.save_dir}/wandb/offline-run-*"
            rank_zero_info(f"zoo: W&B run saved offline; upload it (needs a W&B account) with: wandb sync {runs}")


RUN_NAME = re.compile(r"[A-Za-z0-9._-]+")


def _check_fit_options(config: Namespace) -> None:
    """Refuse bad values of the command's own options (and of the trainer's that Lightning checks only once
    training has begun), before anything is created.

    Raises:
        ConfigError: ``checkpoint_every_n_steps`` below 1, ``keep_last`` below 0, either asked for with
            ``trainer.enable_checkpointing=false``, a ``run_name`` that is not a plain folder name, or a
            ``trainer.val_check_interval`` that is not positive.
    """
    name = config.get("run_name")
    if name is not None and (not RUN_NAME.fullmatch(name) or name in (".", "..")):
        raise ConfigError(
            f"run_name={name!r} is not valid; it must be a folder name of letters, digits, '.', '_' and '-' "
            f"(the folder goes under runs_dir)"
        )
    interval = config.trainer.get("val_check_interval")
    if interval is not None and interval <= 0:
        raise ConfigError(
            f"trainer.val_check_interval={interval} is not valid; it must be a positive number of steps, or a "
            f"fraction of an epoch in (0, 1]"
        )
    every, keep = config.get("checkpoint_every_n_steps"), config.get("keep_last", 0)
    if every is not None and every < 1:
        raise ConfigError(f"checkpoint_every_n_steps={every} is not valid; it must be a positive integer")
    if keep < 0:
        raise ConfigError(f"keep_last={keep} is not valid; it must be an integer >= 0 (0: keep none)")
    if config.trainer.get("enable_checkpointing", True) is False:
        for field, value in (("checkpoint_every_n_steps", every), ("keep_last", keep or None)):
            if value is not None:
                raise ConfigError(f"{field}={value} needs checkpoints, but trainer.enable_checkpointing=false")


def _record_wandb_failure(record: RunRecord, message: str) -> None:
    record.record(wandb_error=message)


def _flag_values(args: list[str], flag: str) -> list[str]:
    """The values given to ``flag`` in ``args`` (``--flag VALUE`` or ``--flag=VALUE``)."""
    values = [value for name, value in zip(args, args[1:], strict=False) if name == flag]
    return values + [arg.split("=", 1)[1] for arg in args if arg.startswith(f"{flag}=")]


def _check_files(args: list[str]) -> None:
    """Check the files named on the command line before the CLI reads them (LightningCLI loads a checkpoint's
    hyperparameters while parsing, with a long traceback for a bad file)."""
    _check_yaml(_flag_values(args, "--config"))
    for ckpt_path in _flag_values(args, "--ckpt_path"):
        if Path(ckpt_path).is_file():
            check_loadable(ckpt_path)


def _check_yaml(paths: list[str]) -> None:
    """Raise ``ConfigError`` naming the file, line and column of a ``--config`` file that is not valid YAML
    (jsonargparse names it ``"<unicode string>"``)."""
    for path in paths:
        if not Path(path).is_file():
            continue
        try:
            load_yaml(path)
        except YAMLFileError as error:
            raise ConfigError(str(error)) from None


def _root_cause(error: BaseException) -> BaseException:
    """The error a class raised itself, unwrapped from jsonargparse's union-type message around it."""
    while str(error).startswith("Does not validate against any of the Union subtypes"):
        inner = error.__cause__ or error.__context__
        if inner is None:
            break
        error = inner
    return error


def _plain(config: Namespace) -> dict:
    """The resolved config of a subcommand as plain dicts, without the CLI's own bookkeeping fields."""
    plain = config.clone().as_dict()
    for key in ("config", "ckpt_path"):
        plain.pop(key, None)
    return plain


TOOLS = {  # subcommands outside LightningCLI's four
    "sweep": "zoo.sweep",
    "compare": "zoo.compare",
    "translate": "zoo.inference.translate",
    "generate": "zoo.inference.generate",
    "attention": "zoo.inference.attention",
    "average": "zoo.inference.average",
}


def main(args: list[str] | None = None) -> None:
    """Entry point of ``python -m zoo``: bad configuration is one line on stderr and exit status 2.

    ``fit``, ``validate``, ``test`` and ``predict`` go to :class:`ZooCLI`; ``sweep``, ``compare``,
    ``translate``, ``generate``, ``attention`` and ``average`` to the ``main(argv)`` of their modules.
    """
    argv = sys.argv[1:] if args is None else list(args)
    _COMMAND_LINE[:] = argv
    if argv and argv[0] in TOOLS:
        module = __import__(TOOLS[argv[0]], fromlist=["main"])
        sys.exit(module.main(argv[1:]))
    silence_noise()
    try:
        _check_files(argv)
        ZooCLI(args=args)
    except (ConfigError, RunFolderError) as error:
        print(f"zoo: error: {error}", file=sys.stderr)
        sys.exit(2)
    except NonFiniteLossError as error:
        print(f"zoo: error: {error}", file=sys.stderr)
        sys.exit(1)
    except SIGTERMException:  # Lightning's SystemExit without a code would exit 0, as if the run had finished
        sys.exit(128 + signal.SIGTERM)
