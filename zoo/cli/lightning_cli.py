"""The command line: a ``LightningCLI`` (jsonargparse) with ``fit``, ``validate``, ``test`` and ``predict``.

Every run gets a folder under ``--runs_dir`` (default ``runs/``) named after what differs between runs,
holding the local run record, the W&B files and the checkpoints. ``fit --ckpt_path last`` resumes the most
recent run of the same name: weights, optimiser, schedule and W&B run.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from jsonargparse import Namespace
from lightning.fabric.utilities.exceptions import MisconfigurationException
from lightning.pytorch import Trainer
from lightning.pytorch.cli import LightningCLI
from lightning.pytorch.trainer.states import TrainerStatus
from lightning.pytorch.utilities import rank_zero_info

from zoo.cli.config_checks import ConfigError, check_options, check_val_check_interval
from zoo.cli.empty_values import WANDB_PROJECT
from zoo.cli.errors import raised_on_purpose
from zoo.cli.evaluation_args import SAID
from zoo.cli.int_or_float import numbers_first
from zoo.cli.lightning_errors import (
    ACCELERATOR_MISSING,
    _accelerator_missing,
    _raised_in_lightning,
    _root_cause,
    _weights_mismatch,
)
from zoo.cli.options import add_zoo_options, parser_settings
from zoo.cli.parser import ZooArgumentParser
from zoo.cli.recorded_values import register
from zoo.cli.run_checks import RunChecks
from zoo.data import ZooDataModule
from zoo.runs.data_seed import resolve_following, settle
from zoo.runs.folders import remove_untrained_run_dir, remove_unused_run_dir
from zoo.runs.launch import RankZeroFailed, shared_run_dir
from zoo.runs.resolution import evaluation_tokenizers, hold_run_folder
from zoo.runs.wandb_logger import continued_project, wandb_mode, wandb_project
from zoo.tasks import TaskModule
from zoo.training.adjusted_knobs import adjusted_knobs, not_applying_knobs, say
from zoo.training.precision import set_matmul_precision
from zoo.training.predictions import PredictionWriter
from zoo.training.progress import ParameterSummary, StepProgressBar
from zoo.training.session import RunSession, flat_config, inherited_run_dir, record_data_folder, recorded_forms
from zoo.training.sigterm import restore_sigterm, stop_on_sigterm

# the trainer fields that pick hardware and its plugins, each of which may need a package of its own
TRAINER_PLUGINS = ("accelerator", "strategy", "precision", "plugins")


class ZooCLI(RunChecks, LightningCLI):
    """``python -m zoo {fit,validate,test,predict} --config configs/<variant>/<data>.yaml [--model.pe=learned ...]``."""

    def __init__(self, args=None, run: bool = True) -> None:
        self.session: RunSession | None = None  # the run folder of the command, if it has one
        self.devices: dict | None = None  # fit: where it runs and its effective batch (zoo.runs.devices.run_devices)
        self.adjusted: dict[str, dict] = {}  # fit: the knobs run with another value (zoo.training.adjusted_knobs)
        self.not_applying: dict = {}  # fit: the knobs the architecture does not use, for summary.json
        self.told_run_dir = False  # another rank (torchrun's rank 0) resolved the run folder
        self.owns_run_dir = True  # this process made or holds it (not a rank that was told or inherited it)
        numbers_first(Trainer.__init__)  # --trainer.limit_val_batches=1 is one batch, not 1.0; devices=1 is 1
        register()  # the parser mode that reads a run's recorded values back
        super().__init__(
            TaskModule,
            ZooDataModule,
            subclass_mode_model=True,
            subclass_mode_data=True,
            save_config_callback=None,
            auto_configure_optimizers=False,
            seed_everything_default=1,
            trainer_defaults={"use_distributed_sampler": False},
            parser_kwargs=parser_settings(),
            parser_class=ZooArgumentParser,
            args=args,
            run=run,
        )

    def _parse_ckpt_path(self) -> None:
        """Keep the command's config as given: LightningCLI would overwrite the model's fields with the
        checkpoint's hyperparameters, silently dropping a changed ``--model.lr``. zoo instead compares the
        command with the run's record and refuses a difference in one line
        (:func:`zoo.runs.resolution.resolve_run_dir`)."""

    def add_arguments_to_parser(self, parser) -> None:
        parser.link_arguments("data", "model.init_args.vocab_size", compute_fn=self._vocab_size, apply_on="instantiate")
        add_zoo_options(parser)

    def _vocab_size(self, data: ZooDataModule) -> int:
        """The model's ``vocab_size``: of the checkpoint's tokenizers for an evaluation, else of the data's."""
        run_dir = self.session.run_dir if self.session else None
        tokenizers = evaluation_tokenizers(self.subcommand, self._config(), run_dir, data) or self._init_tokenizers()
        if tokenizers:
            data.use_tokenizers(tokenizers)
        return data.num_tokens

    # -- run folder ----------------------------------------------------------------------------
    def _config(self) -> Namespace:
        return self.config[self.subcommand] if self.subcommand else self.config

    def before_instantiate_classes(self) -> None:
        config = self._config()
        if self.subcommand is None or config.trainer.get("fast_dev_run"):
            settle(config, None)  # a data.seed left out: the run's seed (zoo.runs.data_seed)
        if self.subcommand is None:
            return
        check_options(config, self.subcommand)  # before the run folder exists
        configured = config.wandb_project
        try:
            wandb_mode()  # a W&B account problem stops the command before anything is created
            config.wandb_project = wandb_project(configured, WANDB_PROJECT)  # the one it logs to, recorded
        except ValueError as error:
            raise ConfigError(str(error)) from None
        set_matmul_precision(config.matmul_precision)
        if config.trainer.get("fast_dev_run"):
            # Lightning's smoke test: no run folder, checkpoint or record that a later command could pick up
            print("zoo: fast_dev_run is a smoke test: nothing is saved (no run folder, checkpoint or W&B run)")
            return
        stop_on_sigterm()  # until Lightning's own handler takes over in fit: a SIGTERM must not leave the folder
        try:
            inherited = inherited_run_dir()  # a DDP child rank: the rank that launched it holds the folder
            if inherited and config.get("ckpt_path") == "last":  # the file the launching rank resolved it to
                config.ckpt_path = str(inherited / "checkpoints" / "last.ckpt")
            run_dir = inherited or self._launch_run_dir(config)
            settle(config, run_dir)  # a rank that did not resolve the folder: the value its run recorded
            config.wandb_project = continued_project(run_dir, configured, config.wandb_project)
        except OSError as error:  # runs_dir is a file, or cannot be created
            raise ConfigError(
                f"runs_dir={config.runs_dir!r}: no run folder can be made there ({error.strerror})"
            ) from None
        except ValueError as error:  # a W&B project that would split the run it continues
            raise ConfigError(str(error)) from None
        self.owns_run_dir = inherited is None and not self.told_run_dir  # removes it if the run never starts
        if run_dir is not None:
            if self.owns_run_dir:
                hold_run_folder(run_dir, self.subcommand)
            self.session = RunSession(run_dir, self.subcommand, config)

    def _launch_run_dir(self, config) -> Path | None:
        """The run folder, resolved here or, for a rank but the first of a launch by ``torchrun``, ``srun`` or
        another launcher that starts every rank, by rank 0 (:func:`zoo.runs.launch.shared_run_dir`); ``told_run_dir``
        says which."""
        try:
            run_dir, self.told_run_dir = shared_run_dir(
                lambda: resolve_following(self.subcommand, config, flat_config(config)),
                Path(config.runs_dir),
                config.trainer.get("num_nodes") or 1,
            )
        except RankZeroFailed as error:
            raise ConfigError(str(error)) from None
        if self.told_run_dir and run_dir is not None and config.get("ckpt_path") == "last":
            config.ckpt_path = str(run_dir / "checkpoints" / "last.ckpt")  # the file rank 0 resolved it to
        return run_dir

    def instantiate_classes(self) -> None:
        run_dir = self.session.run_dir if self.session else None
        try:
            super().instantiate_classes()
            self._check_vocab_size()
            self.model.check_data(self.datamodule)
            self._check_weights_fit()
            self.datamodule.check_batches(self.trainer.num_devices * self.trainer.num_nodes)
            if self.subcommand == "fit":
                train_batches = len(self.datamodule.batch_sampler("train", train=True))
                check_val_check_interval(
                    self._config().trainer, train_batches, self.trainer.num_devices * self.trainer.num_nodes
                )
            if self.subcommand == "test" and "test" not in self.datamodule.splits:
                raise ValueError(
                    f"data.path={self.datamodule.path!r} has no test split; `test` needs one "
                    f"(`python -m zoo validate` evaluates the validation split)"
                )
            needed = {"validate": {"validation"}, "predict": {"validation", "test"}}.get(self.subcommand)
            if needed and not needed & {*self.datamodule.splits}:  # a checkpoint's tokenizers: any split may lack
                raise ValueError(
                    f"data.path={self.datamodule.path!r} has no validation split; `{self.subcommand}` needs one"
                    + (" (or a test split)" if self.subcommand == "predict" else "")
                )
            self._warn_of_a_slow_machine()  # once the configuration is known to be good
            if self.subcommand == "fit":
                self._say_devices()
                self._say_adjusted()
        except (ValueError, FileNotFoundError, ConnectionError, MisconfigurationException, ImportError) as error:
            remove_unused_run_dir(run_dir if self.owns_run_dir else None)  # e.g. a trainer value Lightning refuses
            if isinstance(error, ValueError) and not raised_on_purpose(_root_cause(error)):
                raise  # a bug (`a, b = [x]` in a new component), not a check: its traceback says where
            raise ConfigError(str(_root_cause(error))) from error
        except BaseException as error:
            remove_unused_run_dir(run_dir if self.owns_run_dir else None)  # a run that never started: no folder
            if isinstance(error, TypeError) and _raised_in_lightning(error):  # --trainer.devices=abc
                raise ConfigError(str(error)) from error
            raise
        finally:
            restore_sigterm()

    def _say_adjusted(self) -> None:
        """Say, one line each, which knobs ``fit`` runs with another value than configured (recorded as used when
        training starts: :func:`zoo.training.adjusted_knobs.adjusted_knobs`)."""
        given = self._config().trainer.get("precision")
        self.adjusted = adjusted_knobs(self.datamodule, self.model.hparams, self.trainer, given)
        self.not_applying, lines = not_applying_knobs(self.model)
        for line in say(self.adjusted) + lines:
            rank_zero_info(line)

    def instantiate_trainer(self, **kwargs):
        try:
            return self._build_trainer(**kwargs)
        except ImportError as error:  # accelerator=tpu without torch_xla, strategy=deepspeed without deepspeed
            chosen = {k: v for k in TRAINER_PLUGINS if (v := self._config().trainer.get(k)) not in (None, "auto")}
            settings = ", ".join(f"trainer.{k}={v!r}" for k, v in chosen.items()) or "the trainer"
            raise ValueError(f"{settings} needs a package that is not installed: {error}") from error
        except MisconfigurationException as error:  # accelerator=gpu on a machine without one
            if not any(words in str(error) for words in ACCELERATOR_MISSING):
                raise
            raise ValueError(_accelerator_missing(self._config().trainer.get("accelerator"))) from error

    def _build_trainer(self, **kwargs):
        trainer_config = self._get(self.config_init, "trainer", default={})
        callbacks = list(trainer_config.get("callbacks") or [])
        if trainer_config.get("enable_progress_bar", True) is not False:
            callbacks.append(StepProgressBar())
        if trainer_config.get("enable_model_summary", True) is not False:
            callbacks.append(ParameterSummary())
        if self.session is not None:
            arguments = self.session.trainer_arguments(self.model, callbacks, trainer_config)
            return super().instantiate_trainer(**arguments, **kwargs)
        ckpt_path = self._config().get("ckpt_path")
        if self.subcommand == "predict" and ckpt_path and not trainer_config.get("fast_dev_run"):
            # a checkpoint outside a run folder: the predictions go next to it
            callbacks.append(PredictionWriter(Path(ckpt_path).resolve().parent))
        return super().instantiate_trainer(callbacks=callbacks, logger=False, **kwargs)

    def _run_subcommand(self, subcommand: str) -> None:
        """Run the subcommand; a trainer value that Lightning refuses only once the data is set up (a
        ``val_check_interval`` above the batches of an epoch) is one line, as the checks before it are. A run
        interrupted before its first step leaves no folder (:meth:`RunSession.end_interrupted`), and Lightning's
        exit after a Ctrl-C it stopped is 130 (128 + SIGINT), not 1 (a failure)."""
        for line in SAID:  # the run config an evaluation read
            print(line, file=sys.stderr)
        rank_zero_info(f"Seed set to {self._config().seed_everything}")  # (Lightning's words), the checks passed
        try:
            self._run_checked(subcommand)
        except BaseException as error:
            if self.session is None or self.trainer.state.status != TrainerStatus.INTERRUPTED:
                raise
            self.session.end_interrupted(self.trainer)
            if isinstance(error, SystemExit) and error.code == 1 and isinstance(error.__context__, KeyboardInterrupt):
                raise SystemExit(128 + signal.SIGINT) from None
            raise

    def _run_checked(self, subcommand: str) -> None:
        try:
            super()._run_subcommand(subcommand)
        except RuntimeError as error:
            if "Error(s) in loading state_dict" not in str(error):
                raise
            raise ConfigError(_weights_mismatch(self._config().get("ckpt_path"), str(error))) from error
        except (ValueError, TypeError, MisconfigurationException) as error:
            if self.trainer.global_step == 0 and _raised_in_lightning(error):
                message = str(error).strip()
                if self.session is not None:  # the record says why the run failed before its first step
                    self.session.record.record(error=message)
                raise ConfigError(message) from error
            raise

    # -- around the subcommands: the run session's -----------------------------------------------
    def before_fit(self) -> None:
        if self.session is not None:
            config = self._config()
            config.model.init_args.vocab_size = self.model.hparams.vocab_size  # the linked value, for the record
            record_data_folder(config)
            text, flat = recorded_forms(self._parser(self.subcommand), config)
            try:
                self.session.start_fit(self.trainer, self.model, flat, text, self.devices)
                recorded = ({"adjusted": self.adjusted} if self.adjusted else {}) | self.not_applying | self.init_from
                if recorded and self.trainer.is_global_zero:
                    self.session.record.record(**recorded)
            except BaseException:  # Ctrl-C while W&B starts: a run that never started leaves no folder
                if self.owns_run_dir:
                    remove_untrained_run_dir(self.session.run_dir)
                raise

    def after_fit(self) -> None:
        if self.session is not None:
            self.session.end_fit(self.trainer)

    def after_validate(self) -> None:
        if self.session is not None:
            self.session.finish(self.trainer, None)

    def after_test(self) -> None:
        if self.session is not None:
            self.session.end_test(self.trainer, self.model)

    def after_predict(self) -> None:
        self.after_validate()
