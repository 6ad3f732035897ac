"""A callback for the DDP test: each rank writes the example indices of every training batch it sees."""

from pathlib import Path

from lightning.pytorch.callbacks import Callback


class RecordShards(Callback):
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / f"rank{trainer.global_rank}.txt", "a") as f:
            f.write(" ".join(str(i) for i in batch["index"].tolist()) + "\n")
