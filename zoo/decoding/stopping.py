"""Knowing when every row of a decoding loop has finished without making the host wait for the device at each
generated token.

``if finished.all(): break`` reads the device at every step: on a GPU each read waits for every kernel queued so
far, so the host stops queueing the next step until the device has caught up, at every token. Here the flag of
step ``t`` is copied to a host buffer without waiting, and read at step ``t + lag``, after the copy's event: by
then the device has long finished step ``t`` (it is at most as far behind as the host is ahead), so the host keeps
``lag`` steps queued and never drains the device's queue. The price is at most ``lag`` decoding steps after the
last row has finished, whose output is all padding and is cut off (:attr:`LaggedStop.finished_at`), so the ids
returned are the same as with a read at every step. (A loop that reaches its bound first returns its padding
columns too, rather than wait for the device to know where to cut.)
"""

from __future__ import annotations

from collections import deque

import torch
from torch import Tensor

LAG = 4  # steps between a flag's copy and its read: enough to keep a GPU's queue from draining, few wasted steps


class LaggedStop:
    """Whether every row had finished ``lag`` steps ago.

    Args:
        device: where the decoding runs (its flags are copied from there).
        lag: how many steps later a step's flag is read (``0``: at once, which waits for the device each step).

    Example::

        stop = LaggedStop(tokens.device)
        for t in range(max_steps):
            ...
            if stop.after(t, finished):  # ``(N,)`` bool, ``True`` where a row has finished; never unset
                break
        ids = ids[:, : stop.finished_at + 1]  # the steps after it are padding only
    """

    def __init__(self, device: torch.device, lag: int = LAG) -> None:
        self.device, self.lag = torch.device(device), lag
        self.finished_at: int | None = None  # the first step after which every row had finished, once known
        self._host = torch.zeros(lag + 1, dtype=torch.bool, pin_memory=self._pinned())
        self._flags = self._host.untyped_storage()  # its bytes, read as host memory (one byte per bool)
        self._queued: deque[tuple[int, int, torch.Event | None]] = deque()  # (step, slot, its copy's event)

    def _pinned(self) -> bool:
        return self.device.type == "cuda" and torch.cuda.is_available()

    def after(self, step: int, finished: Tensor) -> bool:
        """Queue ``finished.all()`` of ``step`` (numbered from 0, in order) and return whether every row had
        finished after the step ``lag`` steps back (``False`` until there is one); ``finished`` must never turn
        a row back to unfinished."""
        if self.finished_at is not None:
            return True
        slot = step % (self.lag + 1)
        self._host[slot : slot + 1].copy_(finished.all().reshape(1), non_blocking=True)
        event = None if self.device.type == "cpu" else torch.Event(device=self.device)  # a CPU copy is done
        if event is not None:
            event.record()
        self._queued.append((step, slot, event))
        if len(self._queued) <= self.lag:
            return False
        earlier, slot, event = self._queued.popleft()
        if event is not None:
            event.synchronize()  # done by now unless the device is more than ``lag`` steps behind the host
        if self._flags[slot]:
            self.finished_at = earlier
            return True
        return False


__all__ = ["LAG", "LaggedStop"]
