"""SIGTERM before training starts: the run folder of a run that never started is removed, as after Ctrl-C."""

from __future__ import annotations

import signal
import threading

from lightning.pytorch.utilities.exceptions import SIGTERMException

_DEFAULT_SIGTERM: list = []  # the handler that stop_on_sigterm replaced, while it is in place


def stop_on_sigterm() -> None:
    """Make SIGTERM raise Lightning's ``SIGTERMException`` while the run folder exists but training has not
    started (the model and data are being built), so that the folder of a run that never started is removed as
    after Ctrl-C; Python's default handler ends the process at once. Main thread only (where signals arrive)."""
    if _DEFAULT_SIGTERM or threading.current_thread() is not threading.main_thread():
        return

    def stop(signum, frame):
        raise SIGTERMException

    _DEFAULT_SIGTERM.append(signal.signal(signal.SIGTERM, stop))


def restore_sigterm() -> None:
    """Put back the SIGTERM handler that :func:`stop_on_sigterm` replaced (before Lightning adds its own)."""
    if _DEFAULT_SIGTERM:
        signal.signal(signal.SIGTERM, _DEFAULT_SIGTERM.pop())
