"""The knobs shared by every architecture, as one typed, validated dataclass."""

from __future__ import annotations

from dataclasses import dataclass

from zoo.nn.feedforward import ACTIVATIONS
from zoo.nn.norm import NORMS
from zoo.nn.positional import POSITIONAL_ENCODINGS
from zoo.nn.registry import check_choice

NORM_POSITIONS = ["post", "pre"]


@dataclass
class TransformerConfig:
    """Width, depth-independent knobs and component choices of a Transformer.

    Args:
        d_model: ``D``, the model width (Vaswani et al. 2017: 512).
        n_heads: ``H``, attention heads (paper: 8); ``d_model`` must be divisible by it.
        d_ff: hidden width of the feed-forward network (paper: 2048).
        dropout: residual, embedding, attention and FFN dropout (paper: 0.1).
        activation: FFN activation, one of ``ACTIVATIONS.names()`` (paper: ``relu``).
        norm: normalisation, one of ``NORMS.names()`` (paper: ``layernorm``).
        norm_position: ``post`` (paper: x = Norm(x + Sublayer(x))) or ``pre`` (x = x + Sublayer(Norm(x)),
            with a final norm after each stack).
        pe: positional encoding, one of ``POSITIONAL_ENCODINGS.names()`` (paper: ``sinusoidal``).
        max_len: the longest sequence, in tokens, for ``pe=learned``.
        scale_embedding: multiply token embeddings by sqrt(d_model) (paper, section 3.4).

    Raises:
        ValueError: naming the field, the value and what is valid, for an unknown component name,
            ``d_model`` not divisible by ``n_heads``, a non-positive size or a dropout outside [0, 1).
    """

    d_model: int = 512
    n_heads: int = 8
    d_ff: int = 2048
    dropout: float = 0.1
    activation: str = "relu"
    norm: str = "layernorm"
    norm_position: str = "post"
    pe: str = "sinusoidal"
    max_len: int = 1024
    scale_embedding: bool = True

    def __post_init__(self) -> None:
        ACTIVATIONS.check(self.activation)
        NORMS.check(self.norm)
        POSITIONAL_ENCODINGS.check(self.pe)
        check_choice("model.norm_position", self.norm_position, NORM_POSITIONS)
        for field in ("d_model", "n_heads", "d_ff", "max_len"):
            value = getattr(self, field)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"model.{field}={value!r} is not valid; it must be a positive integer")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"model.d_model={self.d_model} is not divisible by model.n_heads={self.n_heads}; "
                f"pick n_heads among the divisors of d_model"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"model.dropout={self.dropout!r} is not valid; it must be in [0, 1)")
