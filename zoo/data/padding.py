"""Packing token sequences into one tensor and padding a batch of them (the padding-mask convention:
docs/data.md)."""

from __future__ import annotations

import torch

from zoo.data.tokenizer import PAD_ID
from zoo.nn.masks import padding_mask


def pack(sequences: list[list[int]]) -> dict[str, torch.Tensor]:
    """Ragged id lists -> ``{"ids": (N,) int32, "offsets": (n + 1,) int64}`` for compact caching."""
    lengths = torch.tensor([0] + [len(s) for s in sequences], dtype=torch.int64)
    flat = [i for s in sequences for i in s]
    return {"ids": torch.tensor(flat, dtype=torch.int32), "offsets": lengths.cumsum(0)}


def unpack(packed: dict[str, torch.Tensor], index: int) -> torch.Tensor:
    """The ``index``-th sequence of a :func:`pack` result, as int64."""
    start, end = packed["offsets"][index], packed["offsets"][index + 1]
    return packed["ids"][start:end].long()


IGNORE_INDEX = -100  # the target at padding: ``F.cross_entropy``'s default ``ignore_index``, never a token id


def pad(sequences: list[torch.Tensor], value: int = PAD_ID, multiple: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad 1-D tensors to ``(B, S)``, ``S`` the longest rounded up to a multiple of ``multiple``, and say
    where the padding is.

    Returns:
        ``(B, S)`` the padded tensor, and its ``(B, S)`` bool padding mask (``True`` at padding), made from the
        lengths: a real token equal to ``value`` is never taken for padding.
    """
    lengths = torch.tensor([len(s) for s in sequences])
    padded = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True, padding_value=value)
    padded = torch.nn.functional.pad(padded, (0, -padded.shape[1] % multiple), value=value)
    return padded, padding_mask(lengths, padded.shape[1])
