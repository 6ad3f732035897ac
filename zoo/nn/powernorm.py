"""PowerNorm (Shen et al. 2020, "PowerNorm: Rethinking Batch Normalization in Transformers", Algorithm 1).

BatchNorm's batch statistics fluctuate strongly on text. PowerNorm drops the mean, normalises by a *running*
quadratic mean in the forward pass, and makes that trainable with an approximate backward pass
(:mod:`zoo.nn.running_norm`): the gradient is corrected by a running average of its projection on the
output, which stands in for the batch-statistics term of BatchNorm's exact gradient.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from zoo.nn.masks import check_padding_mask
from zoo.nn.norm import NORMS
from zoo.nn.prefix_stats import real_tokens
from zoo.nn.running_norm import running_normalise


@NORMS.register("powernorm", synonyms=("pn", "power_norm", "power"))
class PowerNorm(nn.Module):
    """Power normalisation of each feature: ``y = weight * x / psi + bias`` with ``psi^2`` a running
    quadratic mean of ``x`` over real (non-padding) tokens (Shen et al. 2020, Algorithm 1, with ``alpha``
    their moving-average coefficient, 0.9 in both passes).

    In training the output uses ``psi`` from before this batch and only then updates it, so no output depends
    on any other token of the batch: it is causal and padding-invariant as it stands (``causal`` changes
    nothing). Evaluation uses the same ``psi``, so there is no train/eval gap in the statistics.

    Args:
        d_model: ``D``.
        causal: unused (no statistics of the current batch enter the output).
        max_len: unused.
        bias: learn a shift (``model.bias``).
        alpha: moving-average coefficient of ``psi^2`` (forward) and of the gradient correction ``nu``
            (backward).
        eps: added to ``psi^2``.

    Shapes: ``x`` ``(B, T, D)``, ``padding_mask`` ``(B, T)`` bool (``True`` at padding) or ``None``.
    """

    def __init__(
        self,
        d_model: int,
        causal: bool = False,
        max_len: int = 1024,
        bias: bool = True,
        alpha: float = 0.9,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.alpha, self.eps = alpha, eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model)) if bias else None
        self.register_buffer("running_phi", torch.ones(d_model))
        self.register_buffer("running_nu", torch.zeros(d_model))

    @torch.no_grad()
    def _update_phi(self, x: Tensor, real: Tensor) -> None:
        count = real.sum()
        quadratic_mean = (x * x * real).flatten(0, -2).sum(0) / count.clamp(min=1)
        weight = (1 - self.alpha) * (count > 0).to(x.dtype)
        self.running_phi.lerp_(quadratic_mean.to(self.running_phi.dtype), weight.to(self.running_phi.dtype))

    def forward(self, x: Tensor, padding_mask: Tensor | None = None, offset: int = 0) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)``; ``offset`` is ignored; a ``ValueError`` for a ``padding_mask`` that is
        not bool or not ``(B, T)``."""
        check_padding_mask(padding_mask, "padding_mask", tuple(x.shape[:2]), "(B, T)")
        dtype = x.dtype
        x = x.float() if x.element_size() < 4 else x  # quadratic means need float32 under bf16/fp16
        real = real_tokens(x, padding_mask)
        phi = self.running_phi.to(x.dtype)
        z = running_normalise(x, real, phi, self.running_nu, self.alpha, self.eps)
        if self.training:
            self._update_phi(x.detach(), real)
        out = z * self.weight if self.bias is None else z * self.weight + self.bias
        return out.to(dtype)
