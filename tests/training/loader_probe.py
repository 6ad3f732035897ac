"""A callback for tests: what the train loader of a run was made with, and where its first batch arrived."""

from lightning.pytorch.callbacks import Callback

SEEN: dict = {}


class LoaderProbe(Callback):
    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        if SEEN:
            return
        loader = trainer.train_dataloader
        SEEN.update(num_workers=loader.num_workers, pin_memory=loader.pin_memory)
        SEEN.update(devices={value.device.type for value in batch.values() if hasattr(value, "device")})
