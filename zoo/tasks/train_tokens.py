"""The training tokens a run has seen, counted on the device: adding a step's count never makes the host wait
for the device; the total is read only where it is used (an evaluation's ``train_tokens``, a checkpoint)."""

from __future__ import annotations

from torch import Tensor


class TrainTokens:
    """A running count of training tokens over all ranks; ``None`` once unknown (a checkpoint saved by a version
    that did not count them).

    Args:
        total: the count so far (a checkpoint's), or ``None``.
    """

    def __init__(self, total: int | None = 0) -> None:
        self._total = total
        self._pending: Tensor | None = None  # added on the device since the last read

    def add(self, tokens: Tensor, ranks: int = 1) -> None:
        """Add a step's ``tokens`` (a 0-dim integer tensor, on any device) counted on each of ``ranks``."""
        if self._total is None:
            return
        tokens = tokens.detach() * ranks
        self._pending = tokens if self._pending is None else self._pending + tokens

    def read(self) -> int | None:
        """The count so far (one device-to-host read if steps were added since the last)."""
        if self._pending is not None and self._total is not None:
            self._total += int(self._pending)
        self._pending = None
        return self._total
