"""Ctrl-C during training keeps the work: the first one stops ``fit`` at the end of the current step and saves
``last.ckpt`` there, as SIGTERM does; a second one aborts at once.

Lightning's own Ctrl-C handling stops wherever the ``KeyboardInterrupt`` lands, mid-step, so every step since
the last validation's checkpoint would be lost. Here the first SIGINT only asks Lightning
to stop as it does after SIGTERM (its loops check the request at the end of each step and validation batch, and
under DDP rank 0's request reaches every rank); :class:`zoo.training.callbacks.InterruptedRun` saves the step.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback

_PRESSED: list[bool] = []  # whether the stop of this process's last fit was a Ctrl-C (read by zoo.cli.main.main)


@contextmanager
def sigint_kept() -> Iterator[None]:
    """Put back, on leaving, the SIGINT handler there was on entering. After a Ctrl-C it handled, Lightning
    ignores SIGINT for the rest of the process (``signal.SIG_IGN``, so that more Ctrl-C do not cut its shutdown
    short): a notebook, a test or a script that calls :func:`zoo.cli.main.main` again could no longer be stopped."""
    if threading.current_thread() is not threading.main_thread():  # handlers are the main thread's only
        yield
        return
    handler = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        if handler is not None:  # None: installed outside Python, which cannot be put back
            signal.signal(signal.SIGINT, handler)


def stopped_by_ctrl_c() -> bool:
    """Whether the last ``fit`` of this process stopped at a step's end because of Ctrl-C (not SIGTERM)."""
    return bool(_PRESSED)


class StopOnCtrlC(Callback):
    """While ``fit`` trains, SIGINT (Ctrl-C) asks the trainer to stop at the end of the current step, says so in
    one line, and puts back Python's handler, so that a second Ctrl-C raises ``KeyboardInterrupt`` at once.

    A process that ignores SIGINT (started in the background with ``&`` or ``nohup``), or whose handler is not
    Python's default, keeps its own; so does any thread but the main one (where signals arrive).
    """

    def __init__(self) -> None:
        self._previous = None

    def on_train_start(self, trainer: pl.Trainer, pl_module) -> None:
        _PRESSED.clear()
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, lambda signum, frame: self._stop(trainer))

    def _stop(self, trainer: pl.Trainer) -> None:
        self._restore()
        _PRESSED.append(True)
        trainer._signal_connector.received_sigterm = True  # the request Lightning's loops check after a step
        if trainer.is_global_zero:
            print(
                "\nzoo: Ctrl-C: stopping at the end of this step to save checkpoints/last.ckpt "
                "(Ctrl-C again stops at once, without it)",
                file=sys.stderr,
            )

    def _restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def on_train_end(self, trainer: pl.Trainer, pl_module) -> None:
        self._restore()

    def on_exception(self, trainer: pl.Trainer, pl_module, exception: BaseException) -> None:
        self._restore()

    def teardown(self, trainer: pl.Trainer, pl_module, stage: str) -> None:
        self._restore()
