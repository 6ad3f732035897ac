"""Counting the reads that make the host wait for the device (``.item()``, ``bool()`` of a tensor, ...) in each
training step, with a :class:`torch.overrides.TorchFunctionMode` that sees every tensor method call, and the
``torch.distributed`` collectives (each a wait for every rank), with who made each: the zoo or Lightning."""

from __future__ import annotations

import functools
import sys
from collections import Counter
from pathlib import Path

import lightning.pytorch as pl
import torch
import torch.distributed
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.loops import fetchers
from torch.overrides import TorchFunctionMode

import zoo

# Tensor methods that copy a value to the host and so wait for every kernel queued before them.
READS = {"item", "__bool__", "__int__", "__float__", "__index__", "tolist", "cpu", "numpy", "nonzero", "__format__"}
READS |= {"__repr__", "__str__", "unique", "masked_select", "equal", "allclose"}


# torch.distributed's collectives (and barrier), as Lightning and the zoo call them: through the module's attributes
COLLECTIVES = (
    "all_reduce", "barrier", "broadcast", "all_gather", "all_gather_object", "broadcast_object_list", "reduce",
    "gather", "scatter", "reduce_scatter", "all_to_all", "all_gather_into_tensor", "reduce_scatter_tensor",
    "monitored_barrier",
)  # fmt: skip
ZOO = str(Path(zoo.__file__).parent)
LOOPS = str(Path(pl.__file__).parent / "loops")


def made_by(frame) -> str:
    """``"zoo"`` where code of the zoo runs between the call and the Lightning loop that led to it (a callback,
    a task's hook, a metric it updates), else ``"lightning"`` (the loop's own work)."""
    while frame is not None:
        file = frame.f_code.co_filename
        if file.startswith(ZOO):
            return "zoo"
        if file.startswith(LOOPS):
            return "lightning"
        frame = frame.f_back
    return "lightning"


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
    pipeline works on host tensors): ``reads[step]`` by name, and ``calls[step]`` by ``"<who>:<name>"``
    (:func:`made_by`) with the ``torch.distributed`` collectives too (:meth:`count_collectives`)."""

    def __init__(self) -> None:
        super().__init__()
        self.step: int | None = None
        self.paused = False
        self.reads: dict[int, Counter] = {}
        self.calls: dict[int, Counter] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if self.step is not None and not self.paused and is_read(func, args):
            self.reads.setdefault(self.step, Counter())[func.__name__] += 1
            self._note(func.__name__)
        return func(*args, **(kwargs or {}))

    def _note(self, name: str) -> None:
        self.calls.setdefault(self.step, Counter())[f"{made_by(sys._getframe(2))}:{name}"] += 1

    def count_collectives(self) -> callable:
        """Count each ``torch.distributed`` collective made while a step is counted; returns what undoes it."""
        originals = {name: getattr(torch.distributed, name) for name in COLLECTIVES}

        def counted(name: str, collective):
            @functools.wraps(collective)
            def call(*args, **kwargs):
                if self.step is not None and not self.paused:
                    self._note(name)
                return collective(*args, **kwargs)

            return call

        for name, collective in originals.items():
            setattr(torch.distributed, name, counted(name, collective))
        return lambda: [setattr(torch.distributed, name, f) for name, f in originals.items()]


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


class CountingWithBoundaries(CountReads):
    """Also notes the steps after which validation ran or a checkpoint was saved (and the last, ``steps - 1``):
    reading there is allowed."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.boundaries: set[int] = {steps - 1}

    def on_validation_start(self, trainer, pl_module) -> None:
        self.boundaries.add(trainer.global_step - 1)
        super().on_validation_start(trainer, pl_module)

    def on_save_checkpoint(self, trainer, pl_module, checkpoint) -> None:
        self.boundaries.add(trainer.global_step - 1)

    def quiet(self, counts: dict[int, Counter]) -> dict[int, dict]:
        """``counts`` at the steps that neither log nor end at a boundary."""
        allowed = self.logging_steps | self.boundaries
        return {step: dict(count) for step, count in counts.items() if step not in allowed}


def with_callback(init, callback: Callback):
    """``pl.Trainer.__init__`` (``init``) with ``callback`` added to the trainer's callbacks."""

    @functools.wraps(init)  # the CLI reads the trainer's arguments from its signature
    def init_with_callback(self, *args, **kwargs):
        init(self, *args, **{**kwargs, "callbacks": [*(kwargs.get("callbacks") or []), callback]})

    return init_with_callback


class CountEvaluationReads(Callback):
    """Counts the reads of each validation, test and predict batch, from the batch's start to its end (its
    step, the task's metric updates, the callbacks' batch hooks); ``counter.reads`` is keyed by
    ``(stage, batch_idx)``."""

    def __init__(self) -> None:
        self.counter = ReadCounter()

    def _start(self, stage: str) -> None:
        self.counter.__enter__()

    def _end(self) -> None:
        self.counter.step = None
        self.counter.__exit__(None, None, None)

    def on_validation_start(self, trainer, pl_module) -> None:
        self._start("val")

    def on_test_start(self, trainer, pl_module) -> None:
        self._start("test")

    def on_predict_start(self, trainer, pl_module) -> None:
        self._start("predict")

    def on_validation_end(self, trainer, pl_module) -> None:
        self._end()

    on_test_end = on_predict_end = on_validation_end

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0) -> None:
        self.counter.step = ("val", batch_idx)

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0) -> None:
        self.counter.step = ("test", batch_idx)

    def on_predict_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0) -> None:
        self.counter.step = ("predict", batch_idx)

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        self.counter.step = None

    on_test_batch_end = on_predict_batch_end = on_validation_batch_end
