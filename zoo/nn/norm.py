"""Normalisation layers, picked by ``model.norm``.

Every norm takes ``(x, padding_mask)`` so that a norm with batch statistics can leave padding out of them;
norms that work per token ignore the mask.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from zoo.nn.registry import Registry
from zoo.nn.running_norm import running_normalise

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

    Encoder stacks: the mean and variance of each of the ``D`` features over every ``(b, t)`` with
    ``padding_mask[b, t] == False``; padding neither enters them nor changes the output at real tokens.
    Gradients flow through the statistics, as in BatchNorm.

    Causal stacks (``causal=True``, the self-attention stacks of decoders): batch statistics let position ``t``
    see later positions, and the model learns to use them: with statistics of the batch's causal prefix the
    training loss fell like LayerNorm's while the validation loss (running statistics) rose from 2.55 to 3.34
    (Tiny Shakespeare, 2000 steps). Running statistics alone in the forward pass do not train (nothing holds
    the activations to the statistics they are normalised by). Here a causal BatchNorm normalises with the
    running mean and variance from before the batch, in training as in evaluation, so no output depends on any
    other token, and trains through the approximate backward pass of PowerNorm extended to the mean
    (:mod:`zoo.nn.running_norm`; Shen et al. 2020, Algorithm 1).

    Running statistics (exponential average with ``momentum``, over the whole batch) are used in
    evaluation, so evaluation works at any batch size, 1 included.

    Args:
        d_model: ``D``.
        causal: use the causal scheme above.
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
        self.register_buffer("grad_mean", torch.zeros(d_model))  # the backward corrections of the causal scheme
        self.register_buffer("grad_scale", torch.zeros(d_model))

    @torch.no_grad()
    def _update_running(self, count: Tensor, mean: Tensor, var: Tensor) -> None:
        """Move the running statistics towards the batch's (a batch without real tokens leaves them alone)."""
        weight = self.momentum * (count > 0).to(mean.dtype)
        self.running_mean.lerp_(mean.detach().to(self.running_mean.dtype), weight.to(self.running_mean.dtype))
        self.running_var.lerp_(var.detach().to(self.running_var.dtype), weight.to(self.running_var.dtype))

    def _normalise_training(self, x: Tensor, padding_mask: Tensor | None) -> Tensor:
        """Normalise with batch statistics (or, causal, running ones with the approximate backward pass); then
        update the running statistics from the batch."""
        real = torch.ones_like(x[..., :1]) if padding_mask is None else (~padding_mask).unsqueeze(-1).to(x.dtype)
        count = real.sum()
        mean = (x * real).flatten(0, -2).sum(0) / count.clamp(min=1)
        var = ((x - mean) ** 2 * real).flatten(0, -2).sum(0) / count.clamp(min=1)
        if self.causal:
            running_mean, running_var = self.running_mean.to(x.dtype), self.running_var.to(x.dtype)
            out = running_normalise(x, real, running_mean, running_var, self.grad_mean, self.grad_scale, 0.9, self.eps)
        else:
            empty = count == 0  # a batch of padding only: keep the running statistics
            mean = torch.where(empty, self.running_mean.to(x.dtype), mean)
            var = torch.where(empty, self.running_var.to(x.dtype), var)
            out = (x - mean) * torch.rsqrt(var + self.eps)
        self._update_running(count, mean, var)
        return out

    def forward(self, x: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """Normalise each feature.

        Args:
            x: ``(B, T, D)``.
            padding_mask: ``(B, T)`` bool, ``True`` at padding, or ``None``.

        Returns:
            ``(B, T, D)``.
        """
        dtype = x.dtype
        x = x.float() if x.element_size() < 4 else x  # sums of squares need float32 under bf16/fp16
        if self.training:
            out = self._normalise_training(x, padding_mask)
        else:
            out = (x - self.running_mean.to(x.dtype)) * torch.rsqrt(self.running_var.to(x.dtype) + self.eps)
        return (out * self.weight + self.bias).to(dtype)
