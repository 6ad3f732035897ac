"""Normalisation layers, picked by ``model.norm``.

Every norm takes ``(x, padding_mask)`` so that a norm with batch statistics can leave padding out of them;
norms that work per token ignore the mask.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from zoo.nn.registry import Registry

NORMS: Registry[nn.Module] = Registry("model.norm")


@NORMS.register("layernorm")
class LayerNorm(nn.LayerNorm):
    """Layer normalisation over the feature dimension (Ba et al. 2016), as in Vaswani et al. 2017, 3.1.

    Args:
        d_model: ``D``.
        causal: unused (per-token statistics never leak across positions).
        eps: added to the variance.
    """

    def __init__(self, d_model: int, causal: bool = False, eps: float = 1e-5) -> None:
        super().__init__(d_model, eps=eps)

    def forward(self, x: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)``; ``padding_mask`` is ignored."""
        return super().forward(x)


@NORMS.register("rmsnorm")
class RMSNorm(nn.RMSNorm):
    """Root-mean-square normalisation, no centring (Zhang and Sennrich 2019).

    Args:
        d_model: ``D``.
        causal: unused (per-token statistics).
        eps: added to the mean square.
    """

    def __init__(self, d_model: int, causal: bool = False, eps: float = 1e-5) -> None:
        super().__init__(d_model, eps=eps)

    def forward(self, x: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)``; ``padding_mask`` is ignored."""
        return super().forward(x)


@NORMS.register("batchnorm")
class MaskedBatchNorm(nn.Module):
    """Batch normalisation of each feature over the real (non-padding) tokens of a batch of sequences
    (Ioffe and Szegedy 2015, applied per token as in Shen et al. 2020, "PowerNorm", section 3).

    Statistics: the mean and variance of each of the ``D`` features over every ``(b, t)`` with
    ``padding_mask[b, t] == False``; padding neither enters them nor changes its own output's effect on
    real tokens. Running statistics (exponential average with ``momentum``) are kept for evaluation, so
    evaluation works at any batch size, 1 included.

    Causal-safe scheme (``causal=True``, the self-attention stacks of decoders): batch statistics at
    position ``t`` would include positions after ``t`` of the same batch and leak the future to the
    training loss. Here a causal norm **normalises with the running statistics in training as well**, and
    only then updates them from the batch (without gradient), so an output never depends on any token of
    the current batch but its own. This is the remedy PowerNorm argues for (Shen et al. 2020, sections 3-4:
    batch statistics fluctuate strongly on text; running statistics in the forward pass fix it), without
    PowerNorm's approximate backward pass.

    Args:
        d_model: ``D``.
        causal: use the causal-safe scheme above.
        momentum: weight of the new batch in the running statistics.
        eps: added to the variance.
    """

    def __init__(self, d_model: int, causal: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> None:
        super().__init__()
        self.causal, self.momentum, self.eps = causal, momentum, eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))
        self.register_buffer("running_mean", torch.zeros(d_model))
        self.register_buffer("running_var", torch.ones(d_model))

    def _batch_statistics(self, x: Tensor, padding_mask: Tensor | None) -> tuple[Tensor, Tensor]:
        """Mean and (biased) variance ``(D,)`` over the real tokens of ``x`` ``(B, T, D)``."""
        tokens = x.reshape(-1, x.shape[-1])
        if padding_mask is not None:
            tokens = tokens[~padding_mask.reshape(-1)]
        if tokens.shape[0] == 0:
            return self.running_mean, self.running_var
        return tokens.mean(dim=0), tokens.var(dim=0, unbiased=False)

    @torch.no_grad()
    def _update_running(self, mean: Tensor, var: Tensor) -> None:
        self.running_mean.lerp_(mean.detach().to(self.running_mean.dtype), self.momentum)
        self.running_var.lerp_(var.detach().to(self.running_var.dtype), self.momentum)

    def forward(self, x: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """Normalise each feature.

        Args:
            x: ``(B, T, D)``.
            padding_mask: ``(B, T)`` bool, ``True`` at padding, or ``None``.

        Returns:
            ``(B, T, D)``.
        """
        mean, var = self.running_mean, self.running_var
        if self.training:
            batch_mean, batch_var = self._batch_statistics(x, padding_mask)
            if not self.causal:
                mean, var = batch_mean, batch_var
            else:
                mean, var = mean.clone(), var.clone()
            self._update_running(batch_mean, batch_var)
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias
