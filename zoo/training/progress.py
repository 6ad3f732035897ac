"""The console of a run: a progress bar in optimiser steps out of ``max_steps``, and no messages a user cannot
act on."""

from __future__ import annotations

import logging
import warnings

from lightning.pytorch.callbacks import ModelSummary, RichProgressBar
from lightning.pytorch.utilities import rank_zero_info
from lightning.pytorch.utilities.model_summary import get_human_readable_count

from zoo.nn import count_parameters

# Messages printed by the libraries on every run that say nothing about this run.
_NOISE = (
    "💡 Tip:",  # Lightning advertising another logger
    "`weights_only` was not set",  # Lightning, when the CLI saves the final last.ckpt in full on purpose
    "GPU available:",
    "TPU available:",
    "Trainer already configured with model summary callbacks",  # the zoo's own one-line ParameterSummary
)


class _DropNoise(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.getMessage()).startswith(_NOISE)


def silence_noise() -> None:
    """Filter the messages above from Lightning's loggers, and known deprecation warnings raised inside the
    libraries themselves (Lightning's pytree utilities), which no user can fix."""
    for name in ("lightning.pytorch", "lightning.pytorch.utilities.rank_zero", "lightning.fabric"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropNoise) for f in logger.filters):
            logger.addFilter(_DropNoise())
    warnings.filterwarnings("ignore", message=r".*isinstance\(treespec, LeafSpec\).*")
    # Wrong for zoo: its data modules keep the train position in the checkpoint themselves (ZooDataModule.state_dict)
    warnings.filterwarnings("ignore", message=r"You're resuming from a checkpoint that ended before the epoch ended")
    # the zoo's epoch metrics are torchmetrics objects, synchronised across ranks when computed (tests/cli/test_ddp.py)
    warnings.filterwarnings("ignore", message=r".*recommended to use `self\.log\(.*sync_dist=True\)`")
    # Lightning's note that callbacks are not restored from a checkpoint: the zoo builds its own for every command
    warnings.filterwarnings("ignore", message=r"Be aware that when using `ckpt_path`, callbacks used to create")
    # a resumed run's checkpoints are its own; the ones a resume from an earlier checkpoint would overwrite are
    # set aside first (zoo.training.callbacks.set_aside_later_checkpoints)
    warnings.filterwarnings("ignore", message=r"Checkpoint directory .* exists and is not empty")
    # the zoo's batch samplers return every example in evaluation and prediction (tests/data/test_batching.py)
    warnings.filterwarnings("ignore", message=r"You are using a custom batch sampler .* for prediction")


class StepProgressBar(RichProgressBar):
    """Lightning's rich progress bar, counting optimiser steps out of ``max_steps`` when the run is step-budgeted
    (Lightning's shows ``Epoch 0/-2`` and batch counts that overrun after a resume), without ``v_num``."""

    def _step_budget(self) -> int | None:
        max_steps = self.trainer.max_steps
        return max_steps if max_steps is not None and max_steps > 0 else None

    @property
    def total_train_batches(self) -> int | float:
        return self._step_budget() or super().total_train_batches

    def _get_train_description(self, current_epoch: int) -> str:
        if self._step_budget() is None:
            return super()._get_train_description(current_epoch)
        return f"{'Step':{len(self.validation_description)}}"

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        """One bar for the whole step budget: Lightning resets it at each epoch, which would restart its clock
        and its rate while the count goes on. It starts at the step a resumed run is at, without that jump
        counted in the rate."""
        if self._step_budget() is None or self.is_disabled:
            return super().on_train_epoch_start(trainer, pl_module)
        if self.progress is not None and self.train_progress_bar_id is not None and not self._leave:
            return self.refresh()
        super().on_train_epoch_start(trainer, pl_module)
        if self.progress is not None and self.train_progress_bar_id is not None:
            self.progress.reset(
                self.train_progress_bar_id, total=self.total_train_batches, completed=trainer.global_step
            )

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        if self._step_budget() is None:
            return super().on_train_batch_end(trainer, pl_module, outputs, batch, batch_idx)
        if not self.is_disabled and self.train_progress_bar_id is None:
            self._initialize_train_progress_bar_id()
        self._update(self.train_progress_bar_id, trainer.global_step)
        self._update_metrics(trainer, pl_module)
        self.refresh()

    def _update_metrics(self, trainer, pl_module) -> None:
        """Show the metrics, in training only at the steps that log (``trainer.log_every_n_steps``, and the
        last): reading ``train_loss`` makes the host wait for the device, which could queue steps ahead."""
        logging = trainer._logger_connector.should_update_logs or trainer.fast_dev_run
        if not trainer.training or logging or trainer.global_step >= (self._step_budget() or float("inf")):
            super()._update_metrics(trainer, pl_module)

    def get_metrics(self, trainer, pl_module) -> dict:
        metrics = super().get_metrics(trainer, pl_module)
        metrics.pop("v_num", None)
        loss = trainer.callback_metrics.get("train_loss")  # logged without prog_bar: Lightning reads those every step
        if loss is not None:
            metrics = {"train_loss": float(loss), **metrics}
        return metrics


class ParameterSummary(ModelSummary):
    """The model summary in one line: the task, its network and its trainable parameters (the count the task
    logs as ``parameters``). Lightning's table has a FLOPs column of zeros (it counts them only with an example
    input), and under mixed precision a warning that its size estimate is wrong; the per-module rows of a zoo
    task say no more than its class."""

    def on_fit_start(self, trainer, pl_module) -> None:
        network = getattr(pl_module, "network", None)
        name = type(pl_module).__name__ + (f" ({type(network).__name__})" if network is not None else "")
        count = get_human_readable_count(count_parameters(network if network is not None else pl_module))
        rank_zero_info(f"zoo: model {name}: {count} parameters")
