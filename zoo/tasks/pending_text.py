"""Generated text left on the device until it is needed: a batch's ids from :func:`zoo.decoding.sampling.sample`,
turned into strings at the end of an evaluation or predict epoch (BLEU, the predictions file), when the device
has finished every batch, instead of at each batch, where reading them would make the host wait for the device."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from torch import Tensor

from zoo.decoding.sampling import strip_after_eos


@dataclass
class PendingText:
    """The texts of one batch of generated ids, not yet read from the device.

    Attributes:
        ids: ``(B, T)`` generated ids (``<eos>`` where a row ended, padding after it).
        eos_id: the id that ends a row.
        limits: ``(B,)`` or an int: the most tokens of each row (the padding after a row cut there goes).
        decode: id lists -> strings (a tokenizer's, e.g. :func:`zoo.data.detokenize.decode_batch`).
    """

    ids: Tensor
    eos_id: int
    limits: Tensor | int
    decode: Callable[[list[list[int]]], list[str]]

    def __len__(self) -> int:
        return self.ids.shape[0]

    def texts(self) -> list[str]:
        """The ``B`` strings (reads the ids from the device)."""
        return self.decode(strip_after_eos(self.ids, self.eos_id, self.limits))


def texts(batch: Sequence[str] | PendingText) -> list[str]:
    """The strings of a batch of texts that may still be :class:`PendingText`."""
    return batch.texts() if isinstance(batch, PendingText) else list(batch)


__all__ = ["PendingText", "texts"]
