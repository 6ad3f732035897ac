"""Multi-head scaled dot-product attention (Vaswani et al. 2017, section 3.2, eq. 1 and section 3.2.2)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from zoo.nn.masks import attention_mask, biased_mask, check_is_causal, check_padding_mask


@dataclass
class KeyValueCache:
    """Keys and values of the positions already decoded, for incremental decoding.

    ``k`` and ``v`` are ``(B, H_kv, S, D/H)``: with grouped-query attention (``model.n_kv_heads`` = ``H_kv``
    below ``H``) the cache holds ``H_kv / H`` of the keys and values of multi-head attention. A self-attention
    cache grows by the new positions at each call; a cross-attention cache (``static=True``) is filled once
    from the encoder memory and then reused.
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


def batched(mask: Tensor | None, q: Tensor) -> Tensor | None:
    """``(1 or B, ...)`` ``mask`` expanded (not copied) to the ``B`` of ``(B, H, T, d)`` queries: left to SDPA's
    broadcasting, a mask of batch 1 makes a compiled graph guard on ``B != 1``, and a batch of one example
    compile a graph of its own (:mod:`zoo.tasks.compiling`)."""
    return None if mask is None else mask.expand(q.shape[0], *mask.shape[1:])


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_H) W^O, head_h = Attention(Q W^Q_h, K W^K_h, V W^V_h),
    with Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V (Vaswani et al. 2017, eq. 1 and section 3.2.2).

    With ``n_kv_heads`` = ``H_kv`` below ``H``, the ``H`` query heads share ``H_kv`` key/value heads, query head
    ``h`` reading key/value head ``h // (H / H_kv)``: grouped-query attention (Ainslie et al. 2023, section 2.2);
    ``H_kv = 1`` is multi-query attention (Shazeer 2019). W^K and W^V shrink to ``(H_kv D/H, D)``, and so does the
    key/value cache of incremental decoding.

    Built on ``torch.nn.functional.scaled_dot_product_attention``. Masks follow :mod:`zoo.nn.masks`. A query
    whose keys are all masked gets a zero output (never NaN). With ``keep_weights = True`` (set by
    :func:`zoo.nn.attention_maps.recorded_attention`) it computes the softmax itself and keeps the attention
    weights of its last call in ``weights``; otherwise it stays on the fused SDPA kernel and keeps nothing.

    Args:
        d_model: ``D``, the model width.
        n_heads: ``H``, the number of heads; ``d_k = d_v = D / H``.
        dropout: dropout on the attention weights (training only).
        bias: biases in the query, key, value and output projections (``model.bias``).
        n_kv_heads: ``H_kv``, the key/value heads (``model.n_kv_heads``); ``None``: ``n_heads`` (multi-head).

    Raises:
        ValueError: if ``d_model`` is not divisible by ``n_heads``, either is not positive, or ``n_kv_heads``
            does not divide ``n_heads``.

    Example:
        >>> attn = MultiHeadAttention(d_model=64, n_heads=4)
        >>> x = torch.randn(2, 10, 64)
        >>> attn(x, is_causal=True).shape
        torch.Size([2, 10, 64])
    """

    def __init__(
        self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True, n_kv_heads: int | None = None
    ) -> None:
        super().__init__()
        if n_heads <= 0 or d_model <= 0 or d_model % n_heads != 0:
            raise ValueError(
                f"model.d_model={d_model} must be a positive multiple of model.n_heads={n_heads} "
                f"(each head gets d_model / n_heads dimensions)"
            )
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        check_kv_heads(n_heads, n_kv_heads)
        self.d_model, self.n_heads, self.n_kv_heads, self.dropout = d_model, n_heads, n_kv_heads, dropout
        self.d_kv = d_model // n_heads * n_kv_heads  # the width of W^K and W^V
        # W^Q, W^K and W^V stacked as one (D + 2 D_kv, D) projection (nn.MultiheadAttention's in_proj_weight):
        # self-attention projects queries, keys and values in one matmul.
        self.in_proj = nn.Linear(d_model, d_model + 2 * self.d_kv, bias=bias)
        self.in_proj.stacked = (d_model, self.d_kv, self.d_kv)  # rows of W^Q, W^K, W^V: init_linear_weights
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.keep_weights = False
        self.weights: Tensor | None = None

    def project(self, x: Tensor, first: int, last: int) -> list[Tensor]:
        """Project ``x`` (``(B, T, D)``) with the stacked projections ``first ... last - 1`` (0: queries,
        1: keys, 2: values) in one matmul; each comes back split into heads, ``(B, H, T, D/H)``
        (keys and values ``(B, H_kv, T, D/H)``)."""
        starts = (0, self.d_model, self.d_model + self.d_kv, self.d_model + 2 * self.d_kv)
        rows = slice(starts[first], starts[last])
        bias = None if self.in_proj.bias is None else self.in_proj.bias[rows]
        projected = F.linear(x, self.in_proj.weight[rows], bias)
        batch, length, _ = x.shape
        heads = (self.n_heads, self.n_kv_heads, self.n_kv_heads)[first:last]
        parts = projected.split([count * self.d_model // self.n_heads for count in heads], dim=-1)
        return [part.view(batch, length, count, -1).transpose(1, 2) for part, count in zip(parts, heads, strict=True)]

    def _projections(
        self, query: Tensor, memory: Tensor | None, cache: KeyValueCache | None, rotary: nn.Module | None, past: int
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Queries ``(B, H, T, D/H)``, keys and values ``(B, H_kv, S, D/H)``: rotated and cached as configured."""
        if memory is None:
            q, k, v = self.project(query, 0, 3)
        else:
            q = self.project(query, 0, 1)[0]
            if cache is not None and cache.static and cache.k is not None:  # filled from the memory already
                return q, cache.k, cache.v
            k, v = self.project(memory, 1, 3)
        if rotary is not None:
            q, k = rotary(q, start=past), rotary(k, start=past)
        if cache is not None:
            if not cache.static and cache.k is not None:
                k, v = torch.cat([cache.k, k], dim=2), torch.cat([cache.v, v], dim=2)
            cache.k, cache.v = k, v
        return q, k, v

    @property
    def grouped(self) -> bool:
        """Whether fewer key/value heads than query heads (grouped-query or multi-query attention)."""
        return self.n_kv_heads != self.n_heads

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args, **kwargs) -> None:
        """Checkpoints from before the stacked projection (``q_proj``, ``k_proj``, ``v_proj``) still load."""
        if f"{prefix}q_proj.weight" in state_dict:
            for kind in ("weight", "bias") if f"{prefix}q_proj.bias" in state_dict else ("weight",):
                parts = [state_dict.pop(f"{prefix}{name}_proj.{kind}") for name in "qkv"]
                state_dict[f"{prefix}in_proj.{kind}"] = torch.cat(parts)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

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

        Raises:
            ValueError: a ``key_padding_mask`` that is not bool or not ``(B, S)``, an ``is_causal`` that is not a
                bool, a ``bias`` that is not a float ``(1, H, T, S)``.
        """
        check_is_causal(is_causal)
        past = 0 if cache is None or cache.static else cache.length
        if memory is not None:
            rotary, bias = None, None  # positions of source and target are not comparable
        q, k, v = self._projections(query, memory, cache, rotary, past)
        check_padding_mask(key_padding_mask, "key_padding_mask", (q.shape[0], k.shape[2]))
        if bias is not None:
            _check_bias(bias, (1, self.n_heads, q.shape[2], k.shape[2]))
            bias = bias.to(q.dtype)  # the dtype autocast gave the projections
        is_causal = is_causal and q.shape[2] > 1  # one new query may see every cached key
        if is_causal and key_padding_mask is None and bias is None and q.shape[2] == k.shape[2]:
            out = self._attend_causal(q, k, v)
        else:
            mask = attention_mask(key_padding_mask, is_causal, q.shape[2], k.shape[2], q.device)
            out = self._attend(q, k, v, mask, bias)
        batch, _, length, _ = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(batch, length, self.d_model))

    def _attend_causal(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        """Causal attention of ``T`` queries to the same ``T`` positions, no padding and no bias: SDPA's own
        causal kernel (flash attention where there is one) with no mask tensor built."""
        if self.keep_weights:
            return self._attend(q, k, v, attention_mask(None, True, q.shape[2], k.shape[2], q.device), None)
        dropout = self.dropout if self.training else 0.0
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=True, enable_gqa=self.grouped)

    def _attend(self, q: Tensor, k: Tensor, v: Tensor, allowed: Tensor | None, bias: Tensor | None) -> Tensor:
        dropout = self.dropout if self.training else 0.0
        if self.keep_weights:
            return self._attend_keeping_weights(q, k, v, allowed, bias, dropout)
        if allowed is None:
            return F.scaled_dot_product_attention(
                q, k, v, attn_mask=batched(bias, q), dropout_p=dropout, enable_gqa=self.grouped
            )
        # A row with no allowed key would be softmax over -inf only (NaN): let it attend anywhere, then zero it.
        has_key = allowed.any(dim=-1, keepdim=True)
        mask = biased_mask(allowed | ~has_key, bias)
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=batched(mask, q), dropout_p=dropout, enable_gqa=self.grouped
        )
        return out * has_key

    def _attend_keeping_weights(
        self, q: Tensor, k: Tensor, v: Tensor, allowed: Tensor | None, bias: Tensor | None, dropout: float
    ) -> Tensor:
        """softmax(Q K^T / sqrt(d_k) + bias) V written out (eq. 1), keeping the ``(B, H, T, S)`` weights in
        ``self.weights`` (zero at masked keys; a row with no allowed key is all zero)."""
        if self.grouped:  # each key/value head serves H / H_kv query heads, in order
            k, v = (t.repeat_interleave(self.n_heads // self.n_kv_heads, dim=1) for t in (k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if bias is not None:
            scores = scores + bias
        if allowed is not None:
            scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.float() if scores.element_size() < 4 else scores  # the softmax in float32 under bf16 too
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        self.weights = weights.detach()
        return F.dropout(weights, dropout).to(v.dtype) @ v


def check_kv_heads(n_heads: int, n_kv_heads: object) -> None:
    """Refuse key/value heads that do not divide the query heads (each group of ``H / H_kv`` query heads
    shares one key/value head, Ainslie et al. 2023).

    Raises:
        ValueError: naming ``model.n_kv_heads``, its value and the valid ones.
    """
    if isinstance(n_kv_heads, bool) or not isinstance(n_kv_heads, int) or n_kv_heads <= 0 or n_heads % n_kv_heads:
        valid = [h for h in range(1, n_heads + 1) if n_heads % h == 0]
        raise ValueError(
            f"model.n_kv_heads={n_kv_heads!r} is not valid; it must divide model.n_heads={n_heads}: one of "
            f"{', '.join(map(str, valid))} ({n_heads}: multi-head, 1: multi-query attention), or null for {n_heads}"
        )


def _check_bias(bias, shape: tuple[int, int, int, int]) -> None:
    """Refuse an attention ``bias`` that is not a float tensor of ``shape`` ``(1, H, T, S)``.

    Raises:
        ValueError: naming ``bias``, what was given and what is valid.
    """
    if not (isinstance(bias, Tensor) and bias.is_floating_point() and tuple(bias.shape) == shape):
        got = f"a {bias.dtype} tensor of shape {tuple(bias.shape)}" if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(f"bias must be a float tensor of shape (1, H, T, S) = {shape}, added to the scores; got {got}")
