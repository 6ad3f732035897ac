"""Poolings of an encoder's hidden states into one vector per sequence, picked by ``model.pooling``."""

from __future__ import annotations

import torch
from torch import Tensor

from zoo.nn.masks import check_padding_mask
from zoo.registry import POOLINGS


@POOLINGS.register("mean", synonyms=("avg", "average", "mean_pooling", "avg_pooling"))
def mean_pooling(hidden: Tensor, padding_mask: Tensor) -> Tensor:
    """The mean over the real tokens: ``(B, S, D)`` and a ``(B, S)`` padding mask (``True`` at padding) ->
    ``(B, D)``.

    Example:
        >>> hidden = torch.tensor([[[1.0], [3.0], [100.0]]])
        >>> mean_pooling(hidden, torch.tensor([[False, False, True]]))
        tensor([[2.]])

    Raises:
        ValueError: a ``padding_mask`` that is not a bool ``(B, S)`` tensor.
    """
    check_padding_mask(padding_mask, "padding_mask", tuple(hidden.shape[:2]))
    if padding_mask is None:
        return hidden.mean(dim=1)
    real = (~padding_mask).unsqueeze(-1).to(hidden.dtype)
    return (hidden * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)


@POOLINGS.register("cls", synonyms=("first", "cls_token", "cls_pooling", "bos"))
def first_token_pooling(hidden: Tensor, padding_mask: Tensor) -> Tensor:
    """The first token's state (``[CLS]``, Devlin et al. 2019, section 3): ``(B, S, D)`` -> ``(B, D)``; the
    ``(B, S)`` bool ``padding_mask`` is checked (a ``ValueError``), as every pooling does, and not needed."""
    check_padding_mask(padding_mask, "padding_mask", tuple(hidden.shape[:2]))
    return hidden[:, 0]


@POOLINGS.register("final", synonyms=("last", "last_token", "final_state", "final_states"))
def final_state_pooling(hidden: Tensor, padding_mask: Tensor, directions: int = 1) -> Tensor:
    """Each direction's state after it has read the whole sequence: the forward part of ``(B, S, D)`` at the last
    real position, and, for a reader in two directions (``D = 2 H``, forward first), the backward part at
    position 0. For a (bi)LSTM/GRU run over a packed sequence this is ``[h_fwd_final; h_bwd_final]``, the top
    layer's ``h_n`` (Tai et al. 2015's sentence representation; Sutskever et al. 2014's fixed vector).

    Args:
        hidden: ``(B, S, D)`` states, zero or anything at padding (never read).
        padding_mask: ``(B, S)`` bool, ``True`` at padding (right padding); ``None``: none.
        directions: 1 or 2, how many directions ``D`` holds side by side.

    Returns:
        ``(B, D)``.

    Raises:
        ValueError: a ``padding_mask`` that is not a bool ``(B, S)`` tensor, or a ``directions`` that is not 1 or
            2 or does not divide ``D``.

    Example:
        >>> hidden = torch.tensor([[[1.0, -1.0], [2.0, -2.0], [9.0, 9.0]]])
        >>> final_state_pooling(hidden, torch.tensor([[False, False, True]]), directions=2)
        tensor([[ 2., -1.]])
    """
    check_padding_mask(padding_mask, "padding_mask", tuple(hidden.shape[:2]))
    if directions not in (1, 2) or hidden.shape[-1] % directions:
        raise ValueError(f"directions={directions!r} is not valid for states of width {hidden.shape[-1]}; use 1 or 2")
    batch, length = hidden.shape[:2]
    last = torch.full((batch,), length - 1, device=hidden.device)
    if padding_mask is not None:
        last = ((~padding_mask).sum(dim=1) - 1).clamp(min=0)
    rows = torch.arange(batch, device=hidden.device)
    forward = hidden[rows, last]
    if directions == 1:
        return forward
    width = hidden.shape[-1] // 2
    return torch.cat([forward[:, :width], hidden[:, 0, width:]], dim=-1)
