"""Normalisation by a running statistic that still trains: the forward pass uses only statistics of earlier
batches, and the backward pass approximates the batch-statistics term of the exact gradient with a running
average (Shen et al. 2020, "PowerNorm", Algorithm 1).

Normalising by the batch's own quadratic mean, with ``z = x / psi`` and ``g = dL/dz``, has the exact
gradient ``dL/dx = (g - z * mean_B(g * z)) / psi``: the batch mean keeps activations tied to the statistic
they are normalised by. With a running ``psi`` in the forward pass (no batch statistics, so no output depends
on another token: causal and batch-independent), that mean is replaced by a running estimate ``nu``, updated
from each batch after use so that ``mean(g~ * z)`` of the corrected gradient ``g~ = g - nu * z`` is driven
to zero.
"""

from __future__ import annotations

import torch
from torch import Tensor


def _masked_mean(values: Tensor, real: Tensor) -> Tensor:
    """Mean over the real tokens of ``values`` ``(B, T, D)`` (``real`` ``(B, T, 1)``): ``(D,)``."""
    return (values * real).flatten(0, -2).sum(0) / real.sum().clamp(min=1)


class _RunningNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, real, var, nu, alpha, eps):
        scale = torch.rsqrt(var + eps)
        z = x * scale
        ctx.save_for_backward(z, real, scale)
        ctx.nu, ctx.alpha = nu, alpha
        return z

    @staticmethod
    def backward(ctx, grad_z):
        z, real, scale = ctx.saved_tensors
        corrected = (grad_z - ctx.nu.to(z.dtype) * z) * real
        with torch.no_grad():
            ctx.nu.add_((1 - ctx.alpha) * _masked_mean(corrected * z, real).to(ctx.nu.dtype))
        return corrected * scale, None, None, None, None, None


def running_normalise(x: Tensor, real: Tensor, var: Tensor, nu: Tensor, alpha: float, eps: float) -> Tensor:
    """``x / sqrt(var + eps)`` with the approximate backward pass above; ``nu`` ``(D,)`` is updated in place
    during backward.

    Args:
        x: ``(B, T, D)``.
        real: ``(B, T, 1)``, 1 at real tokens and 0 at padding (padding gets no gradient).
        var: the running quadratic mean ``(D,)`` from before this batch.
        nu: the running gradient correction ``(D,)``.
        alpha: their moving-average coefficient (PowerNorm: 0.9).
        eps: added to ``var``.

    Returns:
        ``(B, T, D)``.
    """
    if torch.is_grad_enabled() and x.requires_grad:
        return _RunningNormFunction.apply(x, real, var, nu, alpha, eps)
    return x * torch.rsqrt(var + eps)
