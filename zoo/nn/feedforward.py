"""Position-wise feed-forward network (Vaswani et al. 2017, section 3.3), activation picked by
``model.activation``."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from zoo.registry import ACTIVATIONS


class Activation(nn.Module):
    """An activation of the hidden layer. ``gate_factor`` is how many ``d_ff``-wide projections of the
    input it consumes (1 for plain activations, 2 for gated linear units)."""

    gate_factor = 1


@ACTIVATIONS.register("relu", synonyms=("rectifier",))
class ReLU(Activation):
    """max(0, x): the paper's FFN (Vaswani et al. 2017, eq. 2)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


@ACTIVATIONS.register("gelu", synonyms=("gelu_erf", "gelu_exact", "gaussian"))
class GELU(Activation):
    """x * Phi(x) with the exact normal CDF, Phi(x) = (1 + erf(x / sqrt(2))) / 2 (Hendrycks and Gimpel 2016,
    section 2), as BERT (Hugging Face's ``gelu``); GPT-2's tanh approximation is ``gelu_tanh``."""

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x)


@ACTIVATIONS.register("swiglu", synonyms=("swish_glu", "silu_glu", "swi_glu"))
class SwiGLU(Activation):
    """Swish(x W) * (x V) (Shazeer 2020, "GLU Variants Improve Transformer", eq. 6): the input holds both
    projections side by side, ``(..., 2 * d_ff)`` -> ``(..., d_ff)``."""

    gate_factor = 2

    def forward(self, x: Tensor) -> Tensor:
        gate, value = x.chunk(2, dim=-1)
        return F.silu(gate) * value


class FeedForward(nn.Module):
    """FFN(x) = act(x W1 + b1) W2 + b2 (Vaswani et al. 2017, section 3.3, eq. 2).

    Args:
        d_model: ``D``.
        d_ff: the hidden width.
        activation: a name in :data:`ACTIVATIONS`.
        dropout: dropout on the hidden layer (training only).
        bias: learn ``b1`` and ``b2`` (``model.bias``).

    Raises:
        ValueError: for an unknown ``activation``.
    """

    def __init__(
        self, d_model: int, d_ff: int, activation: str = "relu", dropout: float = 0.0, bias: bool = True
    ) -> None:
        super().__init__()
        self.activation = ACTIVATIONS.build(activation)
        self.linear1 = nn.Linear(d_model, d_ff * self.activation.gate_factor, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)

    def forward(self, x: Tensor) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)``."""
        return self.linear2(self.dropout(self.activation(self.linear1(x))))
