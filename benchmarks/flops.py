"""Model FLOPs of a training step (Chowdhery et al. 2022, PaLM, appendix B): 6 FLOPs per matmul parameter and
token it is applied to (2 forward, 4 backward), plus the attention term 12 x d_model x T_q x T_k per
attention layer and sequence (Q K^T and A V, forward and backward), whatever the implementation computes.
Recomputation and masked-out work are not counted, so model FLOPs utilisation compares implementations fairly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.utils.flop_counter import FlopCounterMode


@dataclass(frozen=True)
class Attention:
    """``layers`` attention layers of queries of length ``queries`` over ``keys`` keys (per sequence)."""

    layers: int
    queries: int
    keys: int


def matmul_parameter_tokens(forward: Callable[[], object]) -> int:
    """Sum over every weight matrix of its size times the rows it is applied to, in one call of ``forward``
    (run without gradients): ``N x tokens`` where each weight sees every token once. Counted from the
    matrix-matrix products the call runs (``aten.mm`` and ``aten.addmm``, 2 FLOPs per multiply-add), so a
    projection applied through ``F.linear`` or a slice of a stacked weight counts as well as an ``nn.Linear``;
    attention's own products (batched, or inside the SDPA kernel) and embedding lookups are not counted; an
    output projection tied to the embedding is."""
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        forward()
    counts = counter.get_flop_counts()["Global"]
    return int(sum(counts.get(op, 0) for op in (torch.ops.aten.mm, torch.ops.aten.addmm)) // 2)


def training_flops(parameter_tokens: int, d_model: int, batch: int, attention: list[Attention]) -> float:
    """The model FLOPs of one training step: ``6 N tokens`` plus the attention term for ``batch`` sequences."""
    attention_flops = sum(12 * d_model * a.layers * a.queries * a.keys for a in attention) * batch
    return 6.0 * parameter_tokens + attention_flops
