"""A callback that prints the wall clock at the first training step, for the start-up timing of
:mod:`benchmarks.data` (``--trainer.callbacks+=benchmarks.first_step.FirstStepTime``)."""

from __future__ import annotations

import time

from lightning.pytorch.callbacks import Callback

from benchmarks.data import FIRST_STEP_MARK


class FirstStepTime(Callback):
    """Print ``FIRST_STEP_MARK <seconds since the epoch>`` when the first training batch starts."""

    def __init__(self) -> None:
        self.printed = False

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        if not self.printed:
            print(f"{FIRST_STEP_MARK} {time.time():.6f}", flush=True)
            self.printed = True
