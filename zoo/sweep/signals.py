"""How a sweep and its trials stop together: a trial dies with the sweep, SIGTERM is an interruption, a trial's
process group is signalled as one."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess


def _stop_with_the_sweep() -> None:
    """In a trial's process before it starts (Linux): SIGTERM when the sweep's process dies, also by kill -9,
    so that no trial trains on unwatched and a rerun never starts a second ``fit`` in the same run folder."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: a trial outlives a killed sweep
        pass


PR_SET_PDEATHSIG = 1  # prctl option, <linux/prctl.h>


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM reached the sweep: stopped as on Ctrl-C, and it exits with 143 (128 + SIGTERM), as ``fit`` does."""


def _raise_interrupt(signum, frame) -> None:
    raise Terminated
