"""Model FLOPs of a training step (Chowdhery et al. 2022, PaLM, appendix B): 6 FLOPs per matmul parameter and
token it is applied to (2 forward, 4 backward), plus the attention term 12 x d_model x T_q x T_k per
attention layer and sequence (Q K^T and A V, forward and backward), whatever the implementation computes.
Recomputation and masked-out work are not counted, so model FLOPs utilisation compares implementations fairly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class Attention:
    """``layers`` attention layers of queries of length ``queries`` over ``keys`` keys (per sequence)."""

    layers: int
    queries: int
    keys: int


def _is_matmul(module: nn.Module) -> bool:
    # Hugging Face's GPT-2 uses Conv1D, a linear layer with the weight transposed
    return isinstance(module, nn.Linear) or type(module).__name__ == "Conv1D"


def matmul_parameter_tokens(model: nn.Module, forward: Callable[[], object]) -> int:
    """Sum over every linear layer of its weight's size times the rows it is applied to, in one call of
    ``forward`` (run without gradients): ``N x tokens`` where each weight sees every token once. Embedding
    lookups are not matmuls; an output projection tied to the embedding is one."""
    total = [0]

    def count(module: nn.Module, inputs: tuple, output: torch.Tensor) -> None:
        rows = inputs[0].numel() // inputs[0].shape[-1]
        total[0] += rows * module.weight.numel()

    handles = [m.register_forward_hook(count) for m in model.modules() if _is_matmul(m)]
    try:
        with torch.no_grad():
            forward()
    finally:
        for handle in handles:
            handle.remove()
    return total[0]


def training_flops(parameter_tokens: int, d_model: int, batch: int, attention: list[Attention]) -> float:
    """The model FLOPs of one training step: ``6 N tokens`` plus the attention term for ``batch`` sequences."""
    attention_flops = sum(12 * d_model * a.layers * a.queries * a.keys for a in attention) * batch
    return 6.0 * parameter_tokens + attention_flops
