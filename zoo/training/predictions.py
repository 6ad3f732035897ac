"""``predict`` writes its predictions to a file: one JSON line per input example, in the order of the split.

Each task's ``predict_step`` returns ``{"index": (B,) example indices, "prediction": B JSON values, a (B,)
tensor or a :class:`zoo.tasks.pending_text.PendingText`}`` (the classifier's labels; the translations' and the
language model's generated ids, still on the device), kept as they are until the end, where they are read;
batches arrive in any order (length-bucketed, and shared across DDP ranks), so the lines are put back in
example order here.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import BasePredictionWriter
from lightning.pytorch.utilities import rank_zero_info

from zoo.runs.checkpoint_file import load_checkpoint
from zoo.runs.partial_evaluations import coverage, data_differences, task_differences
from zoo.tasks.pending_text import texts


class PredictionWriter(BasePredictionWriter):
    """Collect each batch's predictions and write ``folder/predictions.<split>.<checkpoint>.jsonl`` at the end
    (``predictions.test.last-step6.jsonl``: the checkpoint's file name and step, :func:`checkpoint_label`): line
    ``i`` is ``{"index": i, "prediction": ...}`` for example ``i`` of the split the data module predicts on. A
    file is never replaced: the same checkpoint predicted again writes ``...-2.jsonl``.

    Predictions with other settings than the run's (another decoder: ``model.beam_size``, ``model.temperature``;
    other data settings) go to a file of their own, ``predictions.<split>.beam_size=4.jsonl``, noted under
    ``beam_size=4/<split>``, and so do those of part of the split (``trainer.limit_predict_batches``:
    ``predictions.<split>.partial.jsonl``), so that no file of the run's own predictions is replaced by them.

    Args:
        folder: where the file goes (the run folder of the checkpoint).
        record: the run's :class:`zoo.runs.record.RunRecord`, which notes the file under ``predictions``, or ``None``.
        recorded: the run's recorded configuration (flat ``model.*``, ``data.*`` fields; ``{}``: none).
        current: the command's configuration, the same way.
    """

    def __init__(self, folder: Path, record=None, recorded: dict | None = None, current: dict | None = None) -> None:
        super().__init__(write_interval="batch")
        self.folder, self.record = Path(folder), record
        self.recorded, self.current = recorded or {}, current or {}
        self.batches: list[tuple[torch.Tensor, object]] = []  # (index, prediction) of each batch, read at the end

    def write_on_batch_end(self, trainer, pl_module, prediction, batch_indices, batch, batch_idx, dataloader_idx):
        self.batches.append((prediction["index"], prediction["prediction"]))  # a read here would wait at every batch

    def read_rows(self) -> dict[int, object]:
        """Every prediction so far by example index, read from the device in one transfer per kind of value
        (the indices; a task's label tensors), then forgotten."""
        batches, self.batches = self.batches, []
        if not batches:
            return {}
        indices = torch.cat([index for index, _ in batches]).tolist()
        tensors = [prediction for _, prediction in batches if isinstance(prediction, torch.Tensor)]
        if len(tensors) == len(batches):
            values = torch.cat(tensors).tolist()
        else:
            values = [value for _, prediction in batches for value in texts(prediction)]
        return dict(zip(indices, values, strict=True))

    def on_predict_epoch_end(self, trainer: pl.Trainer, pl_module) -> None:
        rows = self.read_rows()
        if trainer.world_size > 1 and torch.distributed.is_initialized():
            shares = [None] * trainer.world_size
            torch.distributed.all_gather_object(shares, rows)
            rows = {index: value for share in shares for index, value in share.items()}
        if trainer.global_rank != 0:
            return
        split = trainer.datamodule.predict_split
        partial, _, _ = coverage(
            trainer.num_predict_batches, trainer.predict_dataloaders, trainer.limit_predict_batches
        )
        settings = [*(["partial"] if partial else []), *self._settings(pl_module)]
        made_by = checkpoint_label(trainer.ckpt_path)
        path = _unused(self.folder / ".".join(["predictions", split, *settings, *made_by, "jsonl"]))  # never replaced
        self.folder.mkdir(parents=True, exist_ok=True)
        lines = (json.dumps({"index": i, "prediction": rows[i]}, ensure_ascii=False) + "\n" for i in sorted(rows))
        path.write_text("".join(lines), encoding="utf-8")
        key = "/".join([*settings, split])
        if self.record is not None:
            self.record.record(predictions={**self.record.summary.get("predictions", {}), key: str(path)})
        apart = f" (not the run's settings: {', '.join(settings)})" if settings else ""
        source = f" by {trainer.ckpt_path}" if trainer.ckpt_path else ""
        rank_zero_info(f"zoo: {len(rows)} predictions for the {split!r} split{apart}{source} written to {path}")

    def _settings(self, pl_module) -> list[str]:
        """``["beam_size=4,temperature=0.8"]`` when the predictions' settings differ from the run's, else ``[]``."""
        if not self.recorded:
            return []
        differs = [
            *data_differences(self.recorded, self.current),
            *task_differences(pl_module, "predict", self.recorded),
        ]
        return [",".join(differs)] if differs else []


def checkpoint_label(ckpt_path: str | None) -> list[str]:
    """The part of a predictions file's name that says which checkpoint made it: the file's stem and the step
    it holds (``last-step6``; ``best-step6`` and ``step6`` name their step already); ``[]`` for no checkpoint."""
    if not ckpt_path:
        return []
    stem = Path(ckpt_path).stem
    step = load_checkpoint(str(ckpt_path)).get("global_step")
    return [stem if step is None or f"step{step}" in stem else f"{stem}-step{step}"]


def _unused(path: Path) -> Path:
    """``path``, or the first of ``<stem>-2.jsonl``, ``<stem>-3.jsonl``, ... that is not a file yet."""
    candidates = (path.with_name(f"{path.stem}-{n}{path.suffix}") for n in itertools.count(2))
    return path if not path.exists() else next(c for c in candidates if not c.exists())
