"""Validation loss of trained language models on blocks longer than they were trained on (ALiBi's claim, Press
et al. 2022, "Train Short, Test Long", section 4).

For each checkpoint and each factor F (default 1, 2, 4), the validation split is cut into non-overlapping
blocks of F x the training block size, and the loss (nats per token) is averaged over every predicted token.
All factors predict the same tokens (the split is cut to a multiple of the longest block), so the columns
compare: only the context each prediction sees changes. An encoding with a position table (``learned``) has
no value past ``model.max_len``.

    python benchmarks/extrapolation.py runs/do-*-alibi-*/checkpoints/last.ckpt runs/do-*-rope-*/checkpoints/last.ckpt \\
        --data_path ../shared/data/tinyshakespeare --device cuda

The training block size and the data come from the run folder of each checkpoint (``config.json``), unless
``--block_size`` and ``--data_path`` say otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import torch

from zoo.data import LanguageModelDataModule
from zoo.inference.checkpoint import load_trained
from zoo.registry import POSITIONAL_ENCODINGS
from zoo.tasks import LanguageModelTask


def run_config(ckpt_path: str) -> dict:
    """The flat config recorded in the checkpoint's run folder (``<run>/checkpoints/x.ckpt``), or ``{}``."""
    recorded = Path(ckpt_path).resolve().parent.parent / "config.json"
    return json.loads(recorded.read_text()) if recorded.exists() else {}


def validation_ids(trained, config: dict, data_path: str | None) -> torch.Tensor:
    """The validation split as one stream of token ids, encoded with the checkpoint's own tokenizer."""
    path = data_path or config.get("data.path")
    if path is None:
        raise SystemExit("no run folder config.json next to the checkpoint: pass --data_path")
    data = LanguageModelDataModule(
        path, name=config.get("data.name"), text_column=config.get("data.text_column", "text"), tokenizer="char"
    )
    data.tokenizers = dict(trained.tokenizers)
    return data.encode(data.load()["validation"])["ids"].long()


@torch.no_grad()
def mean_loss(task: LanguageModelTask, ids: torch.Tensor, block: int, batch_size: int) -> float:
    """Mean next-token cross-entropy over non-overlapping blocks of ``block`` inputs of ``ids`` (``ids`` holds a
    multiple of ``block`` tokens, plus one)."""
    starts = torch.arange(0, len(ids) - 1, block)
    total, count = 0.0, 0
    for batch in starts.split(batch_size):
        rows = torch.stack([ids[s : s + block + 1] for s in batch.tolist()]).to(task.device)
        loss, tokens = task.summed_loss({"tokens": rows[:, :-1], "targets": rows[:, 1:]})  # as val_loss
        total, count = total + loss.item(), count + int(tokens)
    return total / count


def evaluate(ckpt_path: str, options) -> tuple[str, int, dict[int, float | None]]:
    """``(label, training block size, {factor: loss or None})`` of one checkpoint."""
    trained = load_trained(ckpt_path, options.device)
    trained.require(LanguageModelTask, "extrapolation")
    task, config = trained.task, run_config(ckpt_path)
    block = options.block_size or config.get("data.block_size")
    if block is None:
        raise SystemExit(f"{ckpt_path}: no run folder config.json next to the checkpoint: pass --block_size")
    ids = validation_ids(trained, config, options.data_path)
    longest = block * max(options.factors)
    ids = ids[: (len(ids) - 1) // longest * longest + 1]
    if len(ids) <= 1:
        raise SystemExit(f"the validation split has fewer than {longest + 1} tokens")
    limited = POSITIONAL_ENCODINGS.get(task.hparams.pe).length_limited
    losses = {
        factor: None
        if limited and block * factor > task.hparams.max_len
        else mean_loss(task, ids, block * factor, options.batch_size)
        for factor in options.factors
    }
    return f"{task.hparams.pe} ({Path(ckpt_path).resolve().parent.parent.name})", block, losses


def table(rows: list[tuple[str, int, dict[int, float | None]]], factors: list[int]) -> str:
    """A Markdown table: a row per checkpoint, a column per factor (loss in nats per token)."""
    header = "| model | trained on | " + " | ".join(f"{f}x" for f in factors) + " |"
    lines = [header, "|" + " --- |" * (len(factors) + 2)]
    for label, block, losses in rows:
        cells = ["n/a" if losses[f] is None else f"{losses[f]:.4f}" for f in factors]
        lines.append(f"| {label} | {block} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ckpt_paths", nargs="+", help="language-model checkpoints (last.ckpt of each run)")
    parser.add_argument("--factors", type=int, nargs="+", default=[1, 2, 4], help="block sizes, x the training one")
    parser.add_argument("--block_size", type=int, default=None, help="the training block size (default: the run's)")
    parser.add_argument("--data_path", default=None, help="hub id or local folder (default: the run's data.path)")
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--device", default="cpu")
    options = parser.parse_args(argv)
    rows = [evaluate(path, options) for path in options.ckpt_paths]
    print("validation loss (nats per token) by evaluation block size")
    print(table(rows, options.factors))
    if any(math.isnan(loss) for _, _, losses in rows for loss in losses.values() if loss is not None):
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
