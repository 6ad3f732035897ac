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

    Encoder stacks: the mean and variance of each of the ``D`` features over every ``(b, t)`` with
    ``padding_mask[b, t] == False``; padding neither enters them nor changes the output at real tokens.
    Gradients flow through the statistics, as in BatchNorm.

    Causal stacks (``causal=True``, the self-attention stacks of decoders): statistics over the whole batch
    would let position ``t`` see later positions of its own sequence, and running statistics alone in the
    forward pass do not train (nothing holds the activations to the statistics they are normalised by; the
    loss rose while the learning rate decayed). Here position ``t`` is normalised with the statistics of the
    batch's causal prefix, every real ``(b, t')`` with ``t' <= t``, with gradients through them: no output
    depends on a later position of any sequence. Measured against alternatives (Batch Renormalization over
    the prefix, Ioffe 2017; shrinking the prefix statistics towards the running ones) in ``docs/ablations.md``;
    :class:`zoo.nn.powernorm.PowerNorm` (``model.norm=powernorm``) is the literature's remedy.

    Running statistics (exponential average with ``momentum``, over the whole batch) are used in
    evaluation, so evaluation works at any batch size, 1 included.

    Args:
        d_model: ``D``.
        causal: use causal-prefix statistics (above).
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

    @torch.no_grad()
    def _update_running(self, count: Tensor, total: Tensor, squares: Tensor) -> None:
        """Move the running statistics towards those of ``count`` tokens (a batch without real tokens leaves
        them unchanged)."""
        mean = total / count.clamp(min=1)
        var = squares / count.clamp(min=1) - mean**2
        weight = self.momentum * (count > 0).to(mean.dtype)
        self.running_mean.lerp_(mean.to(self.running_mean.dtype), weight.to(self.running_mean.dtype))
        self.running_var.lerp_(var.to(self.running_var.dtype), weight.to(self.running_var.dtype))

    def _normalise_training(self, x: Tensor, padding_mask: Tensor | None) -> Tensor:
        """``(x - mean) / std`` with batch (or causal-prefix) statistics; then update the running statistics."""
        real = torch.ones_like(x[..., :1]) if padding_mask is None else (~padding_mask).unsqueeze(-1).to(x.dtype)
        count, total, squares = real.sum(0), (x * real).sum(0), (x * x * real).sum(0)  # (T, 1), (T, D), (T, D)
        running_mean, running_std = self.running_mean.to(x.dtype), (self.running_var.to(x.dtype) + self.eps).sqrt()
        if self.causal:
            count, total, squares = count.cumsum(0), total.cumsum(0), squares.cumsum(0)
            full = count[-1], total[-1], squares[-1]  # the last prefix is the whole batch
        else:
            count, total, squares = count.sum(0), total.sum(0), squares.sum(0)
            full = count, total, squares
        mean = total / count.clamp(min=1)
        std = ((squares / count.clamp(min=1) - mean**2).clamp(min=0) + self.eps).sqrt()
        empty = count == 0  # positions before any real token: fall back to the running statistics
        mean, std = torch.where(empty, running_mean, mean), torch.where(empty, running_std, std)
        out = (x - mean) / std
        self._update_running(*full)
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
