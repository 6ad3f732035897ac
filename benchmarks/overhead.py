"""``python benchmarks/overhead.py [--steps N] [--warmup N] [--sizes tiny shipped] [--device cpu|cuda]``: what a
training step costs through ``zoo fit`` (the real LightningModule, Trainer and callbacks) against a plain PyTorch
loop over the same batches with the same network, per shipped config, as one Markdown table (issue 41).

``zoo fit`` runs in this process with a callback that times each step (batch start to batch start, after
``--warmup`` steps; no validation) and the data loader's share (the time spent fetching the next batch), and
keeps the batches and the weights it started from. The plain loop then trains a copy of those weights on those
batches, already on the device: ``loss.backward()``, clipping when the config clips, AdamW's step and
``zero_grad``; the difference is what the framework, its callbacks and the loader add. Sizes: ``tiny`` (one
layer, d_model 32) and ``shipped`` (the config's own model). Medians over the timed steps.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import this checkout's benchmarks and zoo
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
from lightning.pytorch.callbacks import Callback  # noqa: E402
from lightning.pytorch.loops import fetchers  # noqa: E402

from benchmarks.machine import machine_line, synchronize  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
CONFIGS = {  # config -> local data folder, tiny-size overrides
    "encoder_decoder/multi30k": ("multi30k", ["--model.num_encoder_layers=1", "--model.num_decoder_layers=1"]),
    "encoder_only/sst2": ("sst2", ["--model.num_layers=1"]),
    "decoder_only/tinyshakespeare": ("tinyshakespeare", ["--model.num_layers=1"]),
}
TINY = ["--model.d_model=32", "--model.n_heads=2", "--model.d_ff=64"]
_TIMERS: list[StepTimer] = []  # the callback the CLI built, found again after fit


class StepTimer(Callback):
    """Times each training step and its batch's fetch; keeps the batches (on the device) and the starting module.

    Args:
        warmup: the first steps, not timed (allocator, first kernels, lazy initialisation).
    """

    def __init__(self, warmup: int = 3) -> None:
        self.warmup, self.steps, self.fetches, self.batches = warmup, [], [], []
        self._started: float | None = None
        self.module = None
        _TIMERS.append(self)

    def on_train_start(self, trainer, pl_module) -> None:
        self.module = copy.deepcopy(pl_module)
        self.clip = trainer.gradient_clip_val
        fetch, timer = fetchers._PrefetchDataFetcher.__next__, self

        def timed_fetch(fetcher):
            started = time.perf_counter()
            try:
                return fetch(fetcher)
            finally:
                timer.fetches.append(time.perf_counter() - started)

        fetchers._PrefetchDataFetcher.__next__ = timed_fetch
        self._restore = lambda: setattr(fetchers._PrefetchDataFetcher, "__next__", fetch)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        synchronize(pl_module.device)
        now = time.perf_counter()
        if self._started is not None and trainer.global_step > self.warmup:
            self.steps.append(now - self._started)
        self._started = now
        self.batches.append(batch)

    def on_train_end(self, trainer, pl_module) -> None:
        self._restore()


def fit_args(config: str, size: str, options: argparse.Namespace, runs_dir: str) -> list[str]:
    """The ``zoo fit`` arguments of one row: the warm-up and timed steps, no validation, no checkpoint, no
    progress bar."""
    data, tiny = CONFIGS[config]
    spec = f'{{"class_path": "benchmarks.overhead.StepTimer", "init_args": {{"warmup": {options.warmup}}}}}'
    steps, data_dir, device = options.warmup + options.steps + 1, options.data_dir, options.device
    return [
        "fit", "--config", str(REPO / "configs" / f"{config}.yaml"), f"--data.path={data_dir / data}",
        f"--runs_dir={runs_dir}", f"--trainer.max_steps={steps}", "--trainer.limit_val_batches=0",
        "--trainer.enable_checkpointing=false", "--trainer.enable_progress_bar=false", f"--trainer.callbacks=[{spec}]",
        "--trainer.enable_model_summary=false", f"--trainer.accelerator={device}", "--trainer.devices=1",
        *((TINY + tiny) if size == "tiny" else []),
    ]  # fmt: skip


def plain_loop(timer: StepTimer, warmup: int) -> list[float]:
    """The seconds of each step of a plain PyTorch loop over ``timer``'s batches, from its starting weights."""
    module = timer.module
    hp = module.hparams
    optimizer = torch.optim.AdamW(module.parameters(), lr=hp.lr, betas=tuple(hp.betas), eps=hp.eps)
    times = []
    for i, batch in enumerate(timer.batches):
        synchronize(module.device)
        started = time.perf_counter()
        loss, _ = module.training_loss(batch)
        loss.backward()
        if timer.clip:
            torch.nn.utils.clip_grad_norm_(module.parameters(), timer.clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        synchronize(module.device)
        if i >= warmup:
            times.append(time.perf_counter() - started)
    return times


def measure(config: str, size: str, options: argparse.Namespace) -> str:
    """One Markdown row: ``zoo fit``'s ms a step, the loader's part of it, the plain loop's, and their ratio."""
    from zoo.cli.main import main

    with tempfile.TemporaryDirectory() as runs_dir:
        main(fit_args(config, size, options, runs_dir))
    from benchmarks import overhead  # the CLI built the callback from this module, not from a run as __main__

    timer = overhead._TIMERS.pop()
    fit, loader = statistics.median(timer.steps), statistics.median(timer.fetches[options.warmup :])
    plain = statistics.median(plain_loop(timer, options.warmup))
    parameters = sum(p.numel() for p in timer.module.network.parameters())
    return (
        f"| {config} | {size} ({parameters / 1e6:.2g}M) | {fit * 1e3:.1f} | {loader * 1e3:.1f} ({loader / fit:.0%}) "
        f"| {plain * 1e3:.1f} | {fit / plain:.2f}x |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python benchmarks/overhead.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per row (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed first steps (default 3)")
    parser.add_argument("--sizes", nargs="+", choices=["tiny", "shipped"], default=["tiny", "shipped"])
    parser.add_argument("--only", nargs="+", choices=list(CONFIGS), default=list(CONFIGS), metavar="CONFIG")
    parser.add_argument("--data_dir", type=Path, default=DATA, help="the local data sets (default ../shared/data)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    options = parser.parse_args(argv)
    rows = [measure(config, size, options) for config in options.only for size in options.sizes]
    print(machine_line(torch.device(options.device), "fp32", torch.get_float32_matmul_precision()))
    print(f"\n{options.steps} steps after {options.warmup} of warm-up, medians\n")
    print("| config | size (parameters) | zoo fit ms/step | loader ms/step (share) | plain loop ms/step | ratio |")
    print("|---|---|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
