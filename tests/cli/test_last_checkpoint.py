"""``last.ckpt`` is saved at every validation, also one that sets no new best (Lightning 2.6 saves "last" only
with a best), so that a kill -9 loses at most the steps since the last validation."""

import torch
from lightning.pytorch import Callback, Trainer
from lightning.pytorch.demos.boring_classes import BoringModel

from zoo.training.callbacks import checkpoint_callbacks


class WorseEachTime(BoringModel):
    """Its validation metric grows at each validation: only the first one is a best."""

    monitor, monitor_mode = "val_metric", "min"

    def on_validation_epoch_end(self) -> None:
        self.log("val_metric", float(self.global_step))


class LastStepSeen(Callback):
    """The step held by ``last.ckpt`` at the start of each training step."""

    def __init__(self, path) -> None:
        self.path, self.seen = path, []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if self.path.is_file():
            self.seen.append((trainer.global_step, torch.load(self.path, weights_only=False)["global_step"]))


def test_last_is_saved_at_every_validation(tmp_path):
    model = WorseEachTime()
    seen = LastStepSeen(tmp_path / "checkpoints" / "last.ckpt")
    trainer = Trainer(
        max_steps=7,
        val_check_interval=2,
        limit_val_batches=1,
        callbacks=[seen, *checkpoint_callbacks(tmp_path, model)],
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    trainer.fit(model)
    assert seen.seen == [(2, 2), (3, 2), (4, 4), (5, 4), (6, 6)]
    assert [path.name for path in (tmp_path / "checkpoints").glob("best-*.ckpt")] == ["best-step2.ckpt"]
