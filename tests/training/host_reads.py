"""Counting the reads that make the host wait for the device (``.item()``, ``bool()`` of a tensor, ...) in each
training step, with a :class:`torch.overrides.TorchFunctionMode` that sees every tensor method call."""

from __future__ import annotations

from collections import Counter

import torch
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.loops import fetchers
from torch.overrides import TorchFunctionMode

# Tensor methods that copy a value to the host and so wait for every kernel queued before them.
READS = {"item", "__bool__", "__int__", "__float__", "__index__", "tolist", "cpu", "numpy", "nonzero", "__format__"}
READS |= {"__repr__", "__str__", "unique", "masked_select", "equal", "allclose"}


def is_read(func, args: tuple) -> bool:
    """Whether calling ``func`` on ``args`` waits for the device: a read above, or indexing
    with a boolean mask (its result's size is known only once the mask is)."""
    name = getattr(func, "__name__", "")
    if name in READS:
        return True
    if name == "__getitem__" and len(args) > 1:
        index = args[1] if isinstance(args[1], tuple) else (args[1],)
        return any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in index)
    return False


class ReadCounter(TorchFunctionMode):
    """Counts, per optimiser step, the reads made while it is on (paused while a batch is loaded: the data
    pipeline works on host tensors)."""

    def __init__(self) -> None:
        super().__init__()
        self.step: int | None = None
        self.paused = False
        self.reads: dict[int, Counter] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if self.step is not None and not self.paused and is_read(func, args):
            self.reads.setdefault(self.step, Counter())[func.__name__] += 1
        return func(*args, **(kwargs or {}))


class CountReads(Callback):
    """Turns a :class:`ReadCounter` on from each training batch's start to the next's (the step, its logging
    and callbacks), and records which steps were logging steps (``trainer.log_every_n_steps``)."""

    def __init__(self) -> None:
        self.counter = ReadCounter()
        self.logging_steps: set[int] = set()
        self._pause_loading()

    def _pause_loading(self) -> None:
        counter, fetch = self.counter, fetchers._PrefetchDataFetcher.__next__

        def paused_fetch(fetcher):
            counter.paused = True
            try:
                return fetch(fetcher)
            finally:
                counter.paused = False

        fetchers._PrefetchDataFetcher.__next__ = paused_fetch
        self._restore = lambda: setattr(fetchers._PrefetchDataFetcher, "__next__", fetch)

    def on_train_start(self, trainer, pl_module) -> None:
        self.counter.__enter__()

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self.counter.step = trainer.global_step
        if trainer._logger_connector.should_update_logs:
            self.logging_steps.add(trainer.global_step)

    def on_validation_start(self, trainer, pl_module) -> None:
        self.counter.step = None  # validation is not a training step

    def on_train_end(self, trainer, pl_module) -> None:
        self.counter.step = None
        self.counter.__exit__(None, None, None)
        self._restore()
