"""A callback for the DDP test: each rank writes the example indices of every training batch it sees
(``rank<r>.txt``), and of every validation batch after the sanity check, after the step it validates
(``validation-rank<r>.txt``, lines ``step: indices``)."""

from pathlib import Path

from lightning.pytorch.callbacks import Callback


class RecordShards(Callback):
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def _write(self, name: str, line: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / name, "a") as f:
            f.write(line + "\n")

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self._write(f"rank{trainer.global_rank}.txt", " ".join(str(i) for i in batch["index"].tolist()))

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0) -> None:
        if not trainer.sanity_checking:
            indices = " ".join(str(i) for i in batch["index"].tolist())
            self._write(f"validation-rank{trainer.global_rank}.txt", f"{trainer.global_step}: {indices}")
