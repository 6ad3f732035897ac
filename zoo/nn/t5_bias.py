"""T5's relative position bias (Raffel et al. 2020, section 2.1): a learned scalar per head and per bucket of
relative position, added to the self-attention scores; one table per stack, shared by all its layers.

Buckets are exact for small distances and logarithmically spaced up to ``max_distance``; every longer
distance shares the last bucket, so any length works.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from zoo.nn.positional import PositionalEncoding
from zoo.registry import POSITIONAL_ENCODINGS


def relative_position_bucket(
    relative_position: Tensor, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128
) -> Tensor:
    """The bucket of each relative position ``key - query`` (as in T5's reference implementation).

    Half the buckets hold exact distances 0, 1, ..., the other half distances up to ``max_distance`` in
    logarithmic steps; distances beyond share the last. ``bidirectional`` buckets give keys before and after
    the query separate halves; unidirectional ones (decoders) map every later key to bucket 0.

    Args:
        relative_position: integer tensor, ``key position - query position``.
        bidirectional: separate buckets for keys after the query (encoders).
        num_buckets: the number of buckets (T5: 32).
        max_distance: the distance at which the last bucket starts (T5: 128).

    Returns:
        Long tensor of the same shape, in ``[0, num_buckets)``.

    Example:
        >>> relative_position_bucket(torch.tensor([-200, -20, -3, 0, 3, 20]), bidirectional=True).tolist()
        [15, 10, 3, 0, 19, 26]
    """
    bucket = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (relative_position > 0).long() * num_buckets
        distance = relative_position.abs()
    else:
        distance = (-relative_position).clamp(min=0)
    max_exact = num_buckets // 2
    scaled = torch.log(distance.clamp(min=1).float() / max_exact) / math.log(max_distance / max_exact)
    large = (max_exact + (scaled * (num_buckets - max_exact)).long()).clamp(max=num_buckets - 1)
    return bucket + torch.where(distance < max_exact, distance, large)


@POSITIONAL_ENCODINGS.register("t5", synonyms=("relative", "relative_bias", "t5_bias", "rpe", "bucketed"))
class T5RelativeBias(PositionalEncoding):
    """A learned bias per head and relative-position bucket (Raffel et al. 2020, section 2.1): 32 buckets up to
    distance 128, bidirectional in an encoder and unidirectional in a decoder. Nothing is added to the
    embeddings.

    Args:
        d_model: ``D`` (scales the initialisation, as in T5).
        n_heads: ``H``, one bias per head and bucket.
        max_len: unused: the last bucket holds every longer distance.
        causal: unidirectional buckets (decoders) or bidirectional ones (encoders).
        num_buckets: buckets (T5: 32).
        max_distance: where the last bucket starts (T5: 128).
    """

    scope = "stack"

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        max_len: int,
        causal: bool = False,
        num_buckets: int = 32,
        max_distance: int = 128,
    ) -> None:
        super().__init__(d_model, n_heads, max_len, causal)
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.table = nn.Embedding(num_buckets, n_heads)
        nn.init.normal_(self.table.weight, std=d_model**-0.5)

    def attention_bias(self, query_len: int, key_len: int, offset: int = 0) -> Tensor:
        """``(1, H, T, S)``: the learned bias of the bucket of ``j - i`` for query positions
        ``i = offset ... offset + T - 1`` and key positions ``j = 0 ... S - 1``."""
        device = self.table.weight.device
        relative = (
            torch.arange(key_len, device=device)[None, :]
            - torch.arange(offset, offset + query_len, device=device)[:, None]
        )
        buckets = relative_position_bucket(relative, not self.causal, self.num_buckets, self.max_distance)
        return self.table(buckets).permute(2, 0, 1)[None]
