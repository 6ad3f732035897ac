"""Poolings of an encoder's hidden states into one vector per sequence, picked by ``model.pooling``."""

from __future__ import annotations

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
