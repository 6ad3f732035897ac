"""Decoding with a key/value cache, shared by every generating task."""

from __future__ import annotations

import torch
from torch import Tensor

from zoo.nn import EncoderDecoder


@torch.no_grad()
def greedy_decode(
    model: EncoderDecoder,
    src: Tensor,
    src_padding_mask: Tensor | None,
    bos_id: int,
    eos_id: int,
    pad_id: int,
    max_len: int,
) -> Tensor:
    """Greedy decoding, one token per step, with cached keys and values (the decoder runs on the new token
    only).

    Args:
        model: an encoder-decoder (in eval mode).
        src: ``(B, S)`` source ids.
        src_padding_mask: ``(B, S)`` bool, ``True`` at padding.
        bos_id: the first decoder input.
        eos_id: ends a hypothesis; later positions are ``pad_id``.
        pad_id: fills finished hypotheses.
        max_len: the most tokens generated per hypothesis.

    Returns:
        ``(B, T)`` generated ids, ``T <= max_len``, ``<eos>`` included where produced.
    """
    memory = model.encode(src, src_padding_mask)
    cache = model.decoder.new_cache()
    batch = src.shape[0]
    current = torch.full((batch, 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
    generated = []
    for _ in range(max_len):
        logits = model.output(model.decode(current, memory, None, src_padding_mask, cache))[:, -1]
        current = logits.argmax(dim=-1, keepdim=True).masked_fill(finished[:, None], pad_id)
        generated.append(current)
        finished |= current.squeeze(1) == eos_id
        if finished.all():
            break
    return torch.cat(generated, dim=1)


def strip_after_eos(ids: Tensor, eos_id: int) -> list[list[int]]:
    """``(B, T)`` ids -> per row, the ids before the first ``eos_id``."""
    rows = []
    for row in ids.tolist():
        rows.append(row[: row.index(eos_id)] if eos_id in row else row)
    return rows
