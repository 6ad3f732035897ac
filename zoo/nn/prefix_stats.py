"""Per-feature statistics of a padded batch of sequences, for BatchNorm: over the whole batch (encoders), or
over each position's causal prefix (decoders), so that no position's statistics depend on later ones."""

from __future__ import annotations

import torch
from torch import Tensor


def real_tokens(x: Tensor, padding_mask: Tensor | None) -> Tensor:
    """``(B, T, 1)`` in ``x``'s dtype: 1 at real tokens, 0 at padding (``padding_mask``: ``(B, T)`` bool, ``True``
    at padding; ``None``: every token is real)."""
    return torch.ones_like(x[..., :1]) if padding_mask is None else (~padding_mask).unsqueeze(-1).to(x.dtype)


def batch_statistics(x: Tensor, real: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Mean and (biased) variance of each feature over the real tokens of the batch.

    Args:
        x: ``(B, T, D)``.
        real: ``(B, T, 1)``, 1 at real tokens and 0 at padding.

    Returns:
        ``(count, mean, var)``: ``()``, ``(D,)`` and ``(D,)``.
    """
    count = real.sum()
    mean = (x * real).flatten(0, -2).sum(0) / count.clamp(min=1)
    var = ((x - mean) ** 2 * real).flatten(0, -2).sum(0) / count.clamp(min=1)
    return count, mean, var


def prefix_statistics(x: Tensor, real: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    """Mean and (biased) variance of each feature at each position ``t`` over the real tokens at positions
    ``<= t`` of every sequence in the batch: the statistics BatchNorm may use in a causal stack.

    One pass of cumulative sums; the values are shifted by the mean at position 0 (itself in every prefix, so
    nothing later leaks in) to keep ``E[x^2] - E[x]^2`` accurate for features far from zero.

    Args:
        x: ``(B, T, D)``.
        real: ``(B, T, 1)``, 1 at real tokens and 0 at padding; ``None``: no padding (no mask to apply).

    Returns:
        ``(count, mean, var)``: ``(T, 1)`` real tokens in each prefix, ``(T, D)`` and ``(T, D)``.
    """
    if real is None:
        batch, length = x.shape[:2]
        count = torch.arange(1, length + 1, device=x.device, dtype=x.dtype)[:, None] * batch
        shift = x[:, 0].mean(0).detach()
        centred = x - shift
    else:
        count = real.sum(0).cumsum(0)
        shift = ((x[:, 0] * real[:, 0]).sum(0) / real[:, 0].sum().clamp(min=1)).detach()
        centred = (x - shift) * real
    mean = centred.sum(0).cumsum(0) / count.clamp(min=1)
    var = ((centred * centred).sum(0).cumsum(0) / count.clamp(min=1) - mean**2).clamp(min=0)
    return count, mean + shift, var
