"""Attention weights on request: every :class:`MultiHeadAttention` of a model keeps the weights of its last
call while inside :func:`recorded_attention`, and uses the fused SDPA kernel (keeping nothing) outside it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from zoo.nn.attention import MultiHeadAttention
from zoo.nn.recurrent.attention import Alignment


@contextmanager
def recorded_attention(model: nn.Module) -> Iterator[dict[str, Tensor]]:
    """Record the attention weights of every attention module of ``model`` during the ``with`` block.

    Example:
        >>> from zoo.nn import EncoderDecoder, TransformerConfig
        >>> model = EncoderDecoder(TransformerConfig(d_model=16, n_heads=2, d_ff=32), 20, 20, 1, 1).eval()
        >>> src, tgt = torch.randint(1, 20, (2, 5)), torch.randint(1, 20, (2, 3))
        >>> with recorded_attention(model) as weights:
        ...     _ = model(src, tgt)
        >>> weights["decoder.layers.0.cross_attn"].shape  # (B, H, T, S)
        torch.Size([2, 2, 3, 5])

    Yields:
        A dict, filled when the block ends, from each module's name (``encoder.layers.0.self_attn``,
        ``decoder.layers.1.cross_attn``; a recurrent decoder's ``decoder.attention``, ``H = 1``) to its last
        ``(B, H, T, S)`` weights (rows sum to 1 over the
        allowed keys); modules that did not run are left out.
    """
    modules = {name: m for name, m in model.named_modules() if isinstance(m, (MultiHeadAttention, Alignment))}
    weights: dict[str, Tensor] = {}
    for module in modules.values():
        module.keep_weights, module.weights = True, None
    try:
        with torch.compiler.set_stance("force_eager"):  # a compiled network would keep no weights
            yield weights
    finally:
        for name, module in modules.items():
            if module.weights is not None:
                weights[name] = module.weights
            module.keep_weights, module.weights = False, None
