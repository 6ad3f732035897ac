"""The project's one mask convention.

An **attention bias** (ALiBi, T5's relative bias) is a float ``(1, H, T, S)`` added to the scaled scores of
self-attention; :func:`biased_mask` folds it into the boolean mask.

A **padding mask** is a bool tensor of shape ``(B, S)`` that is ``True`` at padding positions (positions to
ignore) and ``False`` at real tokens: the convention of ``torch.nn.MultiheadAttention``'s
``key_padding_mask``. ``None`` means "no padding". Causality is a flag (``is_causal``), never a mask the
caller builds: query position ``i`` may attend to key positions ``j <= i`` (offset by the number of cached
positions during incremental decoding).
"""

from __future__ import annotations

import torch
from torch import Tensor


def padding_mask(lengths: Tensor, max_len: int | None = None) -> Tensor:
    """The padding mask of a right-padded batch, from the length of each sequence. Built from lengths, not
    from ``ids == pad_id``, so that no token value can ever hide a real position.

    Args:
        lengths: ``(B,)`` integer lengths, the real tokens of each row.
        max_len: ``S``, the padded length (default: the largest length).

    Returns:
        ``(B, S)`` bool, ``True`` at positions ``>= lengths[b]``.
    """
    size = int(lengths.max()) if max_len is None else max_len
    return torch.arange(size, device=lengths.device)[None, :] >= lengths[:, None]


def check_padding_mask(mask, name: str, shape: tuple[int, int], dims: str = "(B, S)") -> None:
    """Refuse a padding mask that is not ``None`` or a bool tensor of ``shape``, at the public entry points of
    :mod:`zoo.nn`: a float or integer mask (``torch.nn.MultiheadAttention`` takes float additive masks, Hugging
    Face models take 1 at *real* tokens) would fail deep inside a torch call, or be read wrongly (``~`` of an
    integer mask is never zero).

    Args:
        mask: what was given.
        name: the argument's name, for the message.
        shape: the valid ``(B, S)``.
        dims: the named dims of ``shape``.

    Raises:
        ValueError: naming the argument, what was given and what is valid.
    """
    if mask is None or (isinstance(mask, Tensor) and mask.dtype == torch.bool and tuple(mask.shape) == shape):
        return
    if not isinstance(mask, Tensor):
        raise ValueError(f"{name} must be a bool tensor of shape {dims} = {shape} or None; got a {type(mask).__name__}")
    hint = ""
    if mask.dtype != torch.bool:
        hint = (
            "; zoo takes no additive or 0/1 masks: pass mask == float('-inf') for an additive one, mask.bool() for "
            "1 at padding, ~mask.bool() for 1 at real tokens"
        )
    raise ValueError(
        f"{name} must be a bool tensor of shape {dims} = {shape}, True at padding; got a {mask.dtype} tensor of "
        f"shape {tuple(mask.shape)}{hint}"
    )


def check_is_causal(is_causal) -> None:
    """Refuse an ``is_causal`` that is not ``True`` or ``False`` (a mask tensor, whose truth value torch refuses
    or reads as one element's).

    Raises:
        ValueError: naming ``is_causal`` and what was given.
    """
    if not isinstance(is_causal, bool):
        raise ValueError(
            f"is_causal must be True or False (zoo builds the causal mask itself); got a {type(is_causal).__name__}"
        )


def attention_mask(
    key_padding_mask: Tensor | None, is_causal: bool, query_len: int, key_len: int, device: torch.device
) -> Tensor | None:
    """Combine padding and causality into a boolean ``attn_mask`` for ``scaled_dot_product_attention``.

    Args:
        key_padding_mask: ``(B, S)`` bool, ``True`` at padding keys, or ``None``.
        is_causal: whether query ``i`` (absolute position ``key_len - query_len + i``) may only see keys
            ``j <= key_len - query_len + i``.
        query_len: ``T``, the number of queries.
        key_len: ``S``, the number of keys (cached keys included).
        device: where to build the mask.

    Returns:
        ``(B or 1, 1, T, S)`` bool, ``True`` where attention is **allowed** (the SDPA convention), or ``None``
        when nothing is masked.
    """
    allowed = None
    if key_padding_mask is not None:
        allowed = (~key_padding_mask)[:, None, None, :]
    if is_causal:
        causal = torch.ones(query_len, key_len, dtype=torch.bool, device=device)
        causal = causal.tril(diagonal=key_len - query_len)[None, None]
        allowed = causal if allowed is None else allowed & causal
    return allowed


def biased_mask(allowed: Tensor, bias: Tensor | None) -> Tensor:
    """A boolean mask and an additive attention bias as one ``attn_mask`` for ``scaled_dot_product_attention``.

    Args:
        allowed: ``(B or 1, 1, T, S)`` bool, ``True`` where attention is allowed.
        bias: ``(1, H, T, S)`` float, added to the scaled scores, or ``None``.

    Returns:
        ``allowed`` itself without a bias; otherwise ``(B or 1, H, T, S)``: the bias where allowed, ``-inf``
        elsewhere.
    """
    if bias is None:
        return allowed
    return torch.where(allowed, bias, float("-inf"))
