"""One Transformer layer and a stack of them, shared by all three architectures.

An encoder layer is self-attention + FFN; a decoder layer adds causal masking and encoder-decoder
attention; a decoder-only layer is an encoder layer with causal masking (Vaswani et al. 2017, section 3.1).
The difference is two flags, ``is_causal`` and ``cross_attention``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from torch import Tensor, nn

from zoo.nn.attention import KeyValueCache, MultiHeadAttention
from zoo.nn.config import TransformerConfig
from zoo.nn.feedforward import FeedForward
from zoo.nn.masks import check_padding_mask
from zoo.nn.positional import checked_shape
from zoo.registry import NORMS, POSITIONAL_ENCODINGS


@dataclass
class LayerCache:
    """The key/value caches of one layer for incremental decoding."""

    self_attn: KeyValueCache = field(default_factory=KeyValueCache)
    cross_attn: KeyValueCache = field(default_factory=lambda: KeyValueCache(static=True))

    def reorder(self, index: Tensor) -> None:
        """Keep rows ``index`` of the self-attention cache (see :meth:`KeyValueCache.reorder`)."""
        self.self_attn.reorder(index)


def build_norm(config: TransformerConfig, is_causal: bool) -> nn.Module:
    """The ``model.norm`` of a ``D``-wide stack (causal-safe in decoders), with a shift unless ``model.bias``
    is false, and ``model.norm_eps``."""
    return NORMS.build(
        config.norm, config.d_model, causal=is_causal, max_len=config.max_len, bias=config.bias, eps=config.norm_eps
    )


class TransformerLayer(nn.Module):
    """Self-attention, optional encoder-decoder attention, and FFN, each in a residual connection with a
    norm placed after (``post``: x = Norm(x + Dropout(Sublayer(x))), Vaswani et al. 2017, section 5.4) or
    before (``pre``: x = x + Dropout(Sublayer(Norm(x))), Xiong et al. 2020).

    Args:
        config: the shared knobs.
        is_causal: mask future positions in self-attention (decoders); also makes norms causal-safe.
        cross_attention: add encoder-decoder attention (the decoder of an encoder-decoder).
    """

    def __init__(self, config: TransformerConfig, is_causal: bool = False, cross_attention: bool = False):
        super().__init__()
        self.is_causal, self.pre_norm = is_causal, config.norm_position == "pre"
        d_model = config.d_model

        def norm() -> nn.Module:
            return build_norm(config, is_causal)

        def attention() -> MultiHeadAttention:
            return MultiHeadAttention(d_model, config.n_heads, config.attn_dropout, config.bias, config.n_kv_heads)

        self.self_attn = attention()
        self.self_attn_norm = norm()
        self.cross_attn = attention() if cross_attention else None
        self.cross_attn_norm = norm() if cross_attention else None
        self.ffn = FeedForward(d_model, config.d_ff, config.activation, config.ffn_dropout, bias=config.bias)
        self.ffn_norm = norm()
        self.dropout = nn.Dropout(config.dropout)

    def _residual(
        self,
        x: Tensor,
        norm: nn.Module,
        sublayer: Callable[[Tensor], Tensor],
        padding_mask: Tensor | None,
        offset: int,
    ) -> Tensor:
        if self.pre_norm:
            return x + self.dropout(sublayer(norm(x, padding_mask, offset)))
        return norm(x + self.dropout(sublayer(x)), padding_mask, offset)

    def forward(
        self,
        x: Tensor,
        padding_mask: Tensor | None = None,
        memory: Tensor | None = None,
        memory_padding_mask: Tensor | None = None,
        rotary: nn.Module | None = None,
        cache: LayerCache | None = None,
        bias: Tensor | None = None,
    ) -> Tensor:
        """Apply the layer.

        Args:
            x: ``(B, T, D)``.
            padding_mask: ``(B, T)`` bool, ``True`` at padding of ``x`` (cached positions included when
                decoding incrementally: ``(B, past + T)``).
            memory: ``(B, S, D)`` encoder output (``cross_attention`` layers only).
            memory_padding_mask: ``(B, S)`` bool, ``True`` at padding of the source.
            rotary: the rotary encoding for self-attention, or ``None``.
            cache: key/value caches for incremental decoding, updated in place.
            bias: ``(1, H, T, past + T)`` added to the self-attention scores (an attention-bias encoding), or
                ``None``.

        Returns:
            ``(B, T, D)``.

        Raises:
            ValueError: a padding mask that is not bool or not of its shape.
        """
        self_cache = None if cache is None else cache.self_attn
        offset = 0 if self_cache is None else self_cache.length
        check_padding_mask(padding_mask, "padding_mask", (x.shape[0], offset + x.shape[1]), "(B, past + T)")
        if memory is not None:
            check_padding_mask(memory_padding_mask, "memory_padding_mask", tuple(memory.shape[:2]))
        own_mask = padding_mask if padding_mask is None else padding_mask[:, -x.shape[1] :]
        x = self._residual(
            x,
            self.self_attn_norm,
            lambda h: self.self_attn(h, None, padding_mask, self.is_causal, rotary, self_cache, bias),
            own_mask,
            offset,
        )
        if self.cross_attn is not None:
            cross_cache = None if cache is None else cache.cross_attn
            x = self._residual(
                x,
                self.cross_attn_norm,
                lambda h: self.cross_attn(h, memory, memory_padding_mask, False, None, cross_cache),
                own_mask,
                offset,
            )
        return self._residual(x, self.ffn_norm, self.ffn, own_mask, offset)


class TransformerStack(nn.Module):
    """``num_layers`` :class:`TransformerLayer` s, plus a final norm when ``norm_position='pre'`` (pre-norm
    leaves the residual stream unnormalised; Xiong et al. 2020, Figure 1). A positional encoding of scope
    ``"stack"`` (ALiBi, T5's relative bias) is built here, with the stack's causality, and its attention bias
    is computed once per call and shared by the layers (Raffel et al. 2020, section 2.1).

    Args:
        config: the shared knobs.
        num_layers: ``N``, the depth (Vaswani et al. 2017: 6).
        is_causal: see :class:`TransformerLayer`.
        cross_attention: see :class:`TransformerLayer`.

    Raises:
        ValueError: if ``num_layers`` is negative.
    """

    def __init__(
        self, config: TransformerConfig, num_layers: int, is_causal: bool = False, cross_attention: bool = False
    ):
        super().__init__()
        if not isinstance(num_layers, int) or num_layers < 0:
            raise ValueError(f"the number of layers must be a non-negative integer, got {num_layers!r}")
        self.layers = nn.ModuleList(TransformerLayer(config, is_causal, cross_attention) for _ in range(num_layers))
        encoding = POSITIONAL_ENCODINGS.get(config.pe)
        self.position_bias = None
        if encoding.scope == "stack":
            self.position_bias = encoding.from_config(config, causal=is_causal)
        self.final_norm = None
        if config.norm_position == "pre":
            self.final_norm = build_norm(config, is_causal)

    def new_cache(self) -> list[LayerCache]:
        """Empty caches, one per layer, for incremental decoding."""
        return [LayerCache() for _ in self.layers]

    def forward(
        self,
        x: Tensor,
        padding_mask: Tensor | None = None,
        memory: Tensor | None = None,
        memory_padding_mask: Tensor | None = None,
        rotary: nn.Module | None = None,
        cache: list[LayerCache] | None = None,
    ) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)``; arguments as in :meth:`TransformerLayer.forward`, ``cache`` a list
        from :meth:`new_cache`."""
        offset = cache[0].self_attn.length if cache else 0
        bias = None
        if self.position_bias is not None:
            queries, keys = x.shape[1], offset + x.shape[1]
            bias = self.position_bias.attention_bias(queries, keys, offset)
            checked_shape(self.position_bias, "attention_bias", bias, (1, self.position_bias.n_heads, queries, keys))
        for i, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache[i]
            x = layer(x, padding_mask, memory, memory_padding_mask, rotary, layer_cache, bias)
        if self.final_norm is not None:
            own_mask = padding_mask if padding_mask is None else padding_mask[:, -x.shape[1] :]
            x = self.final_norm(x, own_mask, offset)
        return x
