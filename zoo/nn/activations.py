"""The activations that published checkpoints use besides the paper's ReLU, picked by ``model.activation``:
GPT-2's tanh approximation of GELU and Marian's SiLU (swish)."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from zoo.nn.feedforward import Activation
from zoo.registry import ACTIVATIONS


@ACTIVATIONS.register("gelu_tanh", synonyms=("gelu_new", "gelu_pytorch_tanh", "gelu_fast", "gelu_approx"))
class TanhGELU(Activation):
    """0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the tanh approximation of GELU (Hendrycks and Gimpel
    2016, section 2), as GPT-2 (OpenAI's ``gelu``; Hugging Face's ``gelu_new``) and ``F.gelu(approximate="tanh")``.
    It differs from the exact ``gelu`` by up to about 5e-4 at ``|x|`` near 2."""

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, approximate="tanh")


@ACTIVATIONS.register("silu", synonyms=("swish", "swish1"))
class SiLU(Activation):
    """x * sigmoid(x), the sigmoid-weighted linear unit (Elfwing et al. 2018), swish with beta = 1 (Ramachandran
    et al. 2017): Marian's ``swish`` (Hugging Face's ``silu``)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x)
