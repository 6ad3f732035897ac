"""The data side of speed: how much of a ``max_tokens`` batch is padding, and how long ``python -m zoo fit``
takes to reach its first training step with a warm cache."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from zoo.cli.yaml_files import load_yaml

REPO = Path(__file__).resolve().parent.parent
FIRST_STEP_MARK = "zoo-benchmark: first training step at"


@dataclass
class Padding:
    """The padded positions of the train batches of one data set, as a fraction of all positions."""

    name: str
    batches: int
    source: float
    target: float | None


def _data_module(config: str, data_dir: Path, local_name: str):
    """The data module of a shipped config, reading its local copy ``data_dir / local_name``."""
    data = load_yaml(REPO / "configs" / config)["data"]
    module, _, name = data["class_path"].rpartition(".")
    cls = getattr(__import__(module, fromlist=[name]), name)
    return cls(**{**data["init_args"], "path": str(data_dir / local_name)})


def _fraction(masks: list) -> float:
    return sum(int(m.sum()) for m in masks) / sum(m.numel() for m in masks)


def padding_fraction(config: str, data_dir: Path, local_name: str) -> Padding:
    """The padding of one epoch of train batches of ``config`` (its ``max_tokens`` batching, shuffled as in
    training), source and target sides separately."""
    module = _data_module(config, data_dir, local_name)
    module.prepare()
    batches = [module.collate("train", indices) for indices in module.batch_sampler("train", train=True).batches(0)]
    source_key = "src_padding_mask" if "src_padding_mask" in batches[0] else "padding_mask"
    target = _fraction([b["tgt_padding_mask"] for b in batches]) if "tgt_padding_mask" in batches[0] else None
    return Padding(config, len(batches), _fraction([b[source_key] for b in batches]), target)


def _seconds_to_run(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
    return time.perf_counter() - start


def _seconds_to_first_step(data_dir: Path, runs_dir: str) -> float:
    """Wall time from starting ``python -m zoo fit`` (tiny Tiny Shakespeare model) to its first training step,
    marked by :class:`benchmarks.first_step.FirstStepTime`."""
    command = [
        sys.executable, "-m", "zoo", "fit", "--config", "configs/decoder_only/tinyshakespeare.yaml",
        f"--data.path={data_dir / 'tinyshakespeare'}", "--model.num_layers=1", "--trainer.max_steps=1",
        "--trainer.limit_val_batches=1", "--trainer.enable_progress_bar=false", f"--runs_dir={runs_dir}",
        "--trainer.callbacks+=benchmarks.first_step.FirstStepTime",
    ]  # fmt: skip
    env = {**os.environ, "WANDB_MODE": "disabled", "PYTHONPATH": str(REPO)}
    start = time.time()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    marks = [line for line in done.stdout.splitlines() if line.startswith(FIRST_STEP_MARK)]
    if done.returncode != 0 or not marks:
        raise RuntimeError(f"zoo fit failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    return float(marks[0].split()[-1]) - start


def startup_times(data_dir: Path) -> dict[str, float]:
    """Seconds to start Python, to import torch, to import Lightning, and from ``python -m zoo fit`` to its
    first training step (the second of two runs, so that the tokenizer and data cache are warm)."""
    times = {
        "python -c pass": _seconds_to_run("pass"),
        "import torch": _seconds_to_run("import torch"),
        "import lightning.pytorch": _seconds_to_run("import lightning.pytorch"),
    }
    with tempfile.TemporaryDirectory() as runs_dir:
        _seconds_to_first_step(data_dir, runs_dir)  # fills the cache
        times["python -m zoo fit -> first step (warm cache)"] = _seconds_to_first_step(data_dir, runs_dir)
    return times
