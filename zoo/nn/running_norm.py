"""Normalisation by running statistics that still trains: the forward pass uses only statistics of earlier
batches, and the backward pass approximates the batch-statistics terms of BatchNorm's gradient with running
averages (Shen et al. 2020, "PowerNorm", Algorithm 1, extended here to the mean for centred normalisation).

BatchNorm's exact gradient, with ``z = (x - mean) / std`` and ``g = dL/dz``, is
``dL/dx = (g - mean_B(g) - z * mean_B(g * z)) / std``: the two batch means keep activations tied to the
statistics they are normalised by. With running statistics in the forward pass (no batch statistics, so no
output depends on another token: causal and batch-independent), those means are replaced by running
estimates ``nu_mean`` and ``nu_scale``, updated from each batch after use so that ``mean(g~)`` and
``mean(g~ * z)`` of the corrected gradient ``g~ = g - nu_mean - nu_scale * z`` are driven to zero.
"""

from __future__ import annotations

import torch
from torch import Tensor


def _masked_mean(values: Tensor, real: Tensor) -> Tensor:
    """Mean over the real tokens of ``values`` ``(B, T, D)`` (``real`` ``(B, T, 1)``): ``(D,)``."""
    return (values * real).flatten(0, -2).sum(0) / real.sum().clamp(min=1)


class _RunningNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, real, mean, var, nu_mean, nu_scale, alpha, eps):
        scale = torch.rsqrt(var + eps)
        z = (x - mean) * scale if mean is not None else x * scale
        ctx.save_for_backward(z, real, scale)
        ctx.nu_mean, ctx.nu_scale, ctx.alpha = nu_mean, nu_scale, alpha
        return z

    @staticmethod
    def backward(ctx, grad_z):
        z, real, scale = ctx.saved_tensors
        corrected = grad_z - ctx.nu_scale.to(z.dtype) * z
        if ctx.nu_mean is not None:
            corrected = corrected - ctx.nu_mean.to(z.dtype)
        corrected = corrected * real
        with torch.no_grad():
            rate = 1 - ctx.alpha
            ctx.nu_scale.add_(rate * _masked_mean(corrected * z, real).to(ctx.nu_scale.dtype))
            if ctx.nu_mean is not None:
                ctx.nu_mean.add_(rate * _masked_mean(corrected, real).to(ctx.nu_mean.dtype))
        return corrected * scale, None, None, None, None, None, None, None


def running_normalise(
    x: Tensor,
    real: Tensor,
    mean: Tensor | None,
    var: Tensor,
    nu_mean: Tensor | None,
    nu_scale: Tensor,
    alpha: float,
    eps: float,
) -> Tensor:
    """``(x - mean) / sqrt(var + eps)`` (``x / sqrt(var + eps)`` when ``mean`` is ``None``) with the approximate
    backward pass above; ``nu_mean`` and ``nu_scale`` ``(D,)`` are updated in place during backward.

    Args:
        x: ``(B, T, D)``.
        real: ``(B, T, 1)``, 1 at real tokens and 0 at padding (padding gets no gradient).
        mean, var: running statistics ``(D,)`` from before this batch.
        nu_mean, nu_scale: the running gradient corrections ``(D,)``.
        alpha: their moving-average coefficient (PowerNorm: 0.9).
        eps: added to ``var``.

    Returns:
        ``(B, T, D)``.
    """
    if torch.is_grad_enabled() and x.requires_grad:
        return _RunningNormFunction.apply(x, real, mean, var, nu_mean, nu_scale, alpha, eps)
    scale = torch.rsqrt(var + eps)
    return (x - mean) * scale if mean is not None else x * scale
