"""Multi-head scaled dot-product attention (Vaswani et al. 2017, section 3.2, eq. 1 and section 3.2.2)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from zoo.nn.masks import attention_mask, biased_mask


@dataclass
class KeyValueCache:
    """Keys and values of the positions already decoded, for incremental decoding.

    ``k`` and ``v`` are ``(B, H, S, D/H)``. A self-attention cache grows by the new positions at each call;
    a cross-attention cache (``static=True``) is filled once from the encoder memory and then reused.
    """

    k: Tensor | None = None
    v: Tensor | None = None
    static: bool = False

    @property
    def length(self) -> int:
        """The number of cached positions."""
        return 0 if self.k is None else self.k.shape[2]

    def reorder(self, index: Tensor) -> None:
        """Keep rows ``index`` (``(N',)`` long) of a self-attention cache, in that order: beam search's
        hypotheses move between beams. A static (cross-attention) cache is left as it is, since the
        reordered rows share their memory (the beams of one sentence)."""
        if not self.static and self.k is not None:
            self.k, self.v = self.k.index_select(0, index), self.v.index_select(0, index)


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_H) W^O, head_h = Attention(Q W^Q_h, K W^K_h, V W^V_h),
    with Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V (Vaswani et al. 2017, eq. 1 and section 3.2.2).

    Built on ``torch.nn.functional.scaled_dot_product_attention``. Masks follow :mod:`zoo.nn.masks`. A query
    whose keys are all masked gets a zero output (never NaN). With ``keep_weights = True`` (set by
    :func:`zoo.nn.attention_maps.recorded_attention`) it computes the softmax itself and keeps the attention
    weights of its last call in ``weights``; otherwise it stays on the fused SDPA kernel and keeps nothing.

    Args:
        d_model: ``D``, the model width.
        n_heads: ``H``, the number of heads; ``d_k = d_v = D / H``.
        dropout: dropout on the attention weights (training only).

    Raises:
        ValueError: if ``d_model`` is not divisible by ``n_heads``, or either is not positive.

    Example:
        >>> attn = MultiHeadAttention(d_model=64, n_heads=4)
        >>> x = torch.randn(2, 10, 64)
        >>> attn(x, is_causal=True).shape
        torch.Size([2, 10, 64])
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        if n_heads <= 0 or d_model <= 0 or d_model % n_heads != 0:
            raise ValueError(
                f"model.d_model={d_model} must be a positive multiple of model.n_heads={n_heads} "
                f"(each head gets d_model / n_heads dimensions)"
            )
        self.d_model, self.n_heads, self.dropout = d_model, n_heads, dropout
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.keep_weights = False
        self.weights: Tensor | None = None

    def _heads(self, x: Tensor) -> Tensor:
        """``(B, T, D)`` -> ``(B, H, T, D/H)``."""
        batch, length, _ = x.shape
        return x.view(batch, length, self.n_heads, -1).transpose(1, 2)

    def _keys_values(
        self, source: Tensor, cache: KeyValueCache | None, rotary: nn.Module | None, past: int
    ) -> tuple[Tensor, Tensor]:
        """Project ``source`` to ``(B, H, S, D/H)`` keys and values, rotated and cached as configured."""
        if cache is not None and cache.static and cache.k is not None:
            return cache.k, cache.v
        k, v = self._heads(self.k_proj(source)), self._heads(self.v_proj(source))
        if rotary is not None:
            k = rotary(k, start=past)
        if cache is not None:
            if not cache.static and cache.k is not None:
                k, v = torch.cat([cache.k, k], dim=2), torch.cat([cache.v, v], dim=2)
            cache.k, cache.v = k, v
        return k, v

    def forward(
        self,
        query: Tensor,
        memory: Tensor | None = None,
        key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
        rotary: nn.Module | None = None,
        cache: KeyValueCache | None = None,
        bias: Tensor | None = None,
    ) -> Tensor:
        """Attend from ``query`` to itself (self-attention) or to ``memory`` (encoder-decoder attention).

        Args:
            query: ``(B, T, D)``.
            memory: ``(B, S, D)`` keys and values for cross-attention; ``None`` for self-attention.
            key_padding_mask: ``(B, S)`` bool, ``True`` at padding keys (all keys, cached ones included).
            is_causal: mask keys after each query's position (self-attention in a decoder).
            rotary: a rotary position encoding applied to queries and keys, or ``None``; ignored for
                cross-attention, where query and key positions belong to different sequences.
            cache: a :class:`KeyValueCache` for incremental decoding, updated in place; ``None`` otherwise.
            bias: ``(1, H, T, S)`` added to the scaled scores of self-attention (ALiBi, T5's relative bias), for
                the ``T`` new queries and all ``S`` keys, cached ones included; ignored for cross-attention.

        Returns:
            ``(B, T, D)``.
        """
        past = 0 if cache is None or cache.static else cache.length
        q = self._heads(self.q_proj(query))
        if memory is not None:
            rotary, bias = None, None  # positions of source and target are not comparable
        if bias is not None:
            bias = bias.to(q.dtype)  # the dtype autocast gave the projections
        if rotary is not None:
            q = rotary(q, start=past)
        k, v = self._keys_values(query if memory is None else memory, cache, rotary, past)
        mask = attention_mask(key_padding_mask, is_causal, q.shape[2], k.shape[2], q.device)
        out = self._attend(q, k, v, mask, bias)
        batch, _, length, _ = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(batch, length, self.d_model))

    def _attend(self, q: Tensor, k: Tensor, v: Tensor, allowed: Tensor | None, bias: Tensor | None) -> Tensor:
        dropout = self.dropout if self.training else 0.0
        if self.keep_weights:
            return self._attend_keeping_weights(q, k, v, allowed, bias, dropout)
        if allowed is None:
            return F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=dropout)
        # A row with no allowed key would be softmax over -inf only (NaN): let it attend anywhere, then zero it.
        has_key = allowed.any(dim=-1, keepdim=True)
        mask = biased_mask(allowed | ~has_key, bias)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)
        return out * has_key

    def _attend_keeping_weights(
        self, q: Tensor, k: Tensor, v: Tensor, allowed: Tensor | None, bias: Tensor | None, dropout: float
    ) -> Tensor:
        """softmax(Q K^T / sqrt(d_k) + bias) V written out (eq. 1), keeping the ``(B, H, T, S)`` weights in
        ``self.weights`` (zero at masked keys; a row with no allowed key is all zero)."""
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if bias is not None:
            scores = scores + bias
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.float() if scores.element_size() < 4 else scores  # the softmax in float32 under bf16 too
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        self.weights = weights.detach()
        return F.dropout(weights, dropout).to(v.dtype) @ v
