"""The checks ZooCLI makes while it builds the task, the data and the trainer: the seed, the vocabulary size,
a checkpoint's weights, and the lines it says before training (a slow precision, more devices than one, more
CPU processes than cores)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from lightning.pytorch import seed_everything
from lightning.pytorch.utilities import rank_zero_info

from zoo.cli.command_line import COMMAND_LINE, MAX_SEED, flag_values
from zoo.cli.config_checks import VALID_SEED, ConfigError
from zoo.cli.lightning_errors import _weights_mismatch
from zoo.runs.checkpoint_file import load_checkpoint
from zoo.runs.devices import cpu_fit_reason, crowded_cpu, run_devices, unpinned_devices
from zoo.training.init_weights import init_checkpoint, init_tokenizers, load_init_weights, new_weights_line
from zoo.training.precision import slow_cpu_precision


class RunChecks:
    """A mixin of :class:`zoo.cli.lightning_cli.ZooCLI` (a ``LightningCLI``): its checks of what it builds."""

    def _set_seed(self) -> None:
        """Lightning's seeding, after a check of the value: an integer in numpy's range, or ``true`` for one drawn
        here (the launcher's on a DDP child rank); anything else, or ``true`` on several nodes, is a
        :class:`ConfigError`."""
        seed = self._get(self.config, "seed_everything")
        if seed is not True and not (_is_int(seed) and 0 <= seed <= MAX_SEED):
            shown = "false" if seed is False else "null" if seed is None else repr(seed)
            raise ConfigError(f"seed_everything={shown} is not valid; {VALID_SEED}")
        nodes = self._get(self.config, "trainer.num_nodes") or 1
        if seed is True and nodes > 1:  # each node's launcher would draw its own: ranks seeded apart
            raise ConfigError(
                f"seed_everything=true draws a seed on each of the trainer.num_nodes={nodes} nodes, which would "
                f"seed their ranks apart; give one seed, e.g. --seed_everything=1"
            )
        if seed is True:  # Lightning's seed_everything() without a seed seeds 0: the seed is drawn here
            child = int(os.environ.get("LOCAL_RANK", "0")) > 0 and "PL_GLOBAL_SEED" in os.environ
            # a DDP child rank takes the seed its launcher drew
            drawn = int(os.environ["PL_GLOBAL_SEED"]) if child else random.SystemRandom().randint(0, MAX_SEED)
            self._config()["seed_everything"] = drawn
        # quietly: _run_subcommand says Lightning's "Seed set to 1" once the checks that follow have passed
        seed = self._get(self.config, "seed_everything")
        self._config()["seed_everything"] = seed_everything(seed, workers=True, verbose=False)

    def _check_vocab_size(self) -> None:
        """Refuse a ``model.vocab_size`` other than the data's: the CLI sets it from the tokenizer, and a value
        given would be silently replaced (a run's recorded config, which holds the linked value, passes)."""
        given, linked = self._config().model.init_args.get("vocab_size"), self.model.hparams.vocab_size
        typed = flag_values(COMMAND_LINE, "--data.vocab_size")
        if given and given != linked and typed:  # a run's config.yaml with another tokenizer size
            raise ValueError(
                f"data.vocab_size={typed[-1]} gives a {linked}-token tokenizer, but the config has "
                f"model.vocab_size={given} (a run's config.yaml records the size it trained with); leave "
                f"data.vocab_size out to use that run's, or model.vocab_size out of the config for a new run"
            )
        if given and given != linked:
            raise ValueError(
                f"model.vocab_size={given} is not valid: the CLI sets it from the data's tokenizer ({linked} "
                f"tokens here); leave it out, and set data.vocab_size for the size of a trained tokenizer"
            )

    init_from: dict = {}  # fit --init_weights: the weights the run starts from, for summary.json

    def _init_tokenizers(self) -> dict[str, str] | None:
        """``fit --init_weights``'s tokenizers (the data is read with the ids its weights learned); else None."""
        config = self._config()
        path = config.get("init_weights")
        if self.subcommand != "fit" or not path:
            return None
        return init_tokenizers(path, config.model.class_path, config.model.init_args.get("architecture", "transformer"))

    def _start_from_weights(self) -> None:
        """``fit --init_weights`` of a new run (a resume takes its own checkpoint's): the weights loaded into the
        model, and a line saying so (and which weights are new) before training."""
        config = self._config()
        path = config.get("init_weights")
        if self.subcommand != "fit" or not path or config.get("ckpt_path"):
            return
        if "train" not in self.datamodule.splits:
            raise ValueError(f"data.path={self.datamodule.path!r} has no train split; `fit` needs one")
        loaded = load_init_weights(self.model, path)
        data = self.datamodule
        rank_zero_info(new_weights_line(path, loaded, data.tokenizer_kind, data.vocab_size))
        imported = init_checkpoint(path).get("zoo_imported")
        self.model.imported = imported  # carried into the run's checkpoints, for export
        shown = ("source", "architecture", "not_imported", "framing")  # the vocabulary and tokenizer stay out
        imported = None if imported is None else {k: v for k, v in imported.items() if k in shown}
        record = {"path": path, "new": loaded.fresh, "unused": loaded.unused}
        self.init_from = {"init_weights": {**record, **({"imported": imported} if imported else {})}}

    def _check_weights_fit(self) -> None:
        """Refuse a ``ckpt_path`` whose weights do not fit the network this command built, before anything is
        written (Lightning finds out only once ``fit`` has started, after the run's record is reopened). The
        weights are loaded as Lightning loads them (strictly, through each module's own loading hooks), which it
        then does again with the same values."""
        self._start_from_weights()
        ckpt_path = self._config().get("ckpt_path")
        if not ckpt_path or not Path(ckpt_path).is_file():
            return
        try:
            self.model.load_state_dict(load_checkpoint(ckpt_path).get("state_dict") or {}, strict=True)
        except RuntimeError as error:
            raise ValueError(_weights_mismatch(ckpt_path, str(error))) from None

    def _warn_of_a_slow_machine(self) -> None:
        """The lines said before a command runs where this machine would slow it: a 16-bit precision, more CPU
        processes than cores."""
        self._warn_of_slow_precision()
        self._warn_of_crowded_cpu()

    def _warn_of_slow_precision(self) -> None:
        """Say so before training when 16-bit floats would slow this CPU down (:func:`slow_cpu_precision`)."""
        typed = self._config().trainer.get("precision")
        warning = slow_cpu_precision(self.trainer.precision, self.trainer.strategy.root_device, typed)
        if warning:
            rank_zero_info(f"zoo: warning: {warning}")

    def _say_devices(self) -> None:
        """Find where ``fit`` runs and its effective batch (recorded when training starts), and say so before
        training when Lightning chose more than one device (:func:`zoo.runs.devices.unpinned_devices`)."""
        self.devices = run_devices(self.trainer, self.datamodule)
        typed = self._config().trainer.get("devices")
        warning = unpinned_devices(typed, self.trainer, self.devices["effective_batch"])
        if warning:
            rank_zero_info(f"zoo: warning: {warning}")
        on_cpu = cpu_fit_reason(self.trainer, self._config().trainer.get("accelerator"))
        if on_cpu:
            rank_zero_info(f"zoo: {on_cpu}")

    def _warn_of_crowded_cpu(self) -> None:
        """Say so before the command runs when it starts more CPU processes than there are cores
        (:func:`zoo.runs.devices.crowded_cpu`); a ``fit`` records the cores and threads (``summary.json``'s
        ``devices``)."""
        warning = crowded_cpu(self.trainer)
        if warning:
            rank_zero_info(f"zoo: warning: {warning}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
