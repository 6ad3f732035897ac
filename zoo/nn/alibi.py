"""ALiBi: attention with linear biases (Press et al. 2022, "Train Short, Test Long", section 3).

No position information is added to the embeddings; each head ``h`` of self-attention instead adds
``-m_h * (i - j)`` to the score of query ``i`` and key ``j``, with head slopes ``m_h`` in a geometric sequence.
The bias depends on the distance only, so a model trained on short sequences evaluates on longer ones.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from zoo.nn.positional import PositionalEncoding
from zoo.registry import POSITIONAL_ENCODINGS


def alibi_slopes(n_heads: int) -> list[float]:
    """The head slopes: ``2^(-8 h / H)`` for heads ``h = 1 ... H`` when ``H`` is a power of 2; otherwise the
    slopes of the closest power of 2 below ``H``, followed by every other slope of twice that power (Press et
    al. 2022, section 3, and their reference code).

    Example:
        >>> alibi_slopes(4)
        [0.25, 0.0625, 0.015625, 0.00390625]
        >>> alibi_slopes(3)
        [0.0625, 0.00390625, 0.25]
    """
    if n_heads & (n_heads - 1) == 0:
        return [2.0 ** (-8.0 * h / n_heads) for h in range(1, n_heads + 1)]
    closest = 2 ** math.floor(math.log2(n_heads))
    return alibi_slopes(closest) + alibi_slopes(2 * closest)[0::2][: n_heads - closest]


@POSITIONAL_ENCODINGS.register("alibi", synonyms=("linear_bias", "linear_biases"))
class ALiBi(PositionalEncoding):
    """Linear biases of the attention scores (Press et al. 2022): ``-m_h * (i - j)`` in a causal stack (keys
    after the query are masked anyway), and the symmetric ``-m_h * |i - j|`` in a bidirectional one (an
    encoder, as in the paper's appendix on bidirectional models). Parameter-free; any length works.

    Args:
        d_model: ``D`` (unused).
        n_heads: ``H``, one slope per head.
        max_len: unused: ALiBi has no length limit.
        causal: the causal form (decoders) or the symmetric one (encoders).
    """

    scope = "stack"

    def __init__(self, d_model: int, n_heads: int, max_len: int, causal: bool = False) -> None:
        super().__init__(d_model, n_heads, max_len, causal)
        self.register_buffer("slopes", torch.tensor(alibi_slopes(n_heads)), persistent=False)

    def attention_bias(self, query_len: int, key_len: int, offset: int = 0) -> Tensor:
        """``(1, H, T, S)``: ``-m_h * (i - j)`` (causal) or ``-m_h * |i - j|``, for query positions
        ``i = offset ... offset + T - 1`` and key positions ``j = 0 ... S - 1``."""
        device = self.slopes.device
        distance = torch.arange(offset, offset + query_len, device=device)[:, None] - torch.arange(
            key_len, device=device
        )
        distance = distance if self.causal else distance.abs()
        return -(self.slopes[:, None, None] * distance)[None]
