"""Normalisation layers, picked by ``model.norm``.

Every norm is built as ``Norm(d_model, causal=..., max_len=..., bias=...)`` and called as
``norm(x, padding_mask, offset)``,
so that a norm with batch statistics can leave padding out of them and keep statistics per position in causal
stacks (``offset``: the position of ``x[:, 0]`` when decoding with a key/value cache); norms that work per token
ignore all three.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from zoo.nn.masks import check_padding_mask
from zoo.nn.prefix_stats import batch_statistics, prefix_statistics, real_tokens
from zoo.registry import NORMS


@NORMS.register("layernorm", synonyms=("ln", "layer_norm", "layer"))
class LayerNorm(nn.LayerNorm):
    """Layer normalisation over the feature dimension (Ba et al. 2016), as in Vaswani et al. 2017, 3.1.

    Args:
        d_model: ``D``.
        causal: unused (per-token statistics never leak across positions).
        max_len: unused.
        bias: learn a shift (``model.bias``).
        eps: added to the variance.
    """

    def __init__(
        self, d_model: int, causal: bool = False, max_len: int = 1024, bias: bool = True, eps: float = 1e-5
    ) -> None:
        super().__init__(d_model, eps=eps, bias=bias)

    def forward(self, x: Tensor, padding_mask: Tensor | None = None, offset: int = 0) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)``; ``padding_mask`` (checked as every norm does) and ``offset`` are
        ignored."""
        check_padding_mask(padding_mask, "padding_mask", tuple(x.shape[:2]), "(B, T)")
        return super().forward(x)


@NORMS.register("rmsnorm", synonyms=("rms", "rms_norm", "rmslayernorm", "t5_layernorm"))
class RMSNorm(nn.RMSNorm):
    """Root-mean-square normalisation, no centring (Zhang and Sennrich 2019).

    Args:
        d_model: ``D``.
        causal: unused (per-token statistics).
        max_len: unused.
        bias: unused (RMSNorm has no shift).
        eps: added to the mean square.
    """

    def __init__(
        self, d_model: int, causal: bool = False, max_len: int = 1024, bias: bool = True, eps: float = 1e-5
    ) -> None:
        super().__init__(d_model, eps=eps)

    def forward(self, x: Tensor, padding_mask: Tensor | None = None, offset: int = 0) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, D)`` in ``x``'s dtype; ``padding_mask`` (checked as every norm does) and
        ``offset`` are ignored."""
        check_padding_mask(padding_mask, "padding_mask", tuple(x.shape[:2]), "(B, T)")
        if x.dtype == self.weight.dtype:
            return super().forward(x)
        # bfloat16 activations under autocast: the mean square in float32 (torch's fused kernel wants one dtype)
        return super().forward(x.float()).to(x.dtype)


@NORMS.register("batchnorm", synonyms=("bn", "batch_norm", "batch"))
class MaskedBatchNorm(nn.Module):
    """Batch normalisation of each feature over the real (non-padding) tokens of a batch of sequences
    (Ioffe and Szegedy 2015, applied per token as in Shen et al. 2020, "PowerNorm", section 3).

    Encoder stacks: the mean and variance of each of the ``D`` features over every ``(b, t)`` with
    ``padding_mask[b, t] == False``; padding neither enters them nor changes the output at real tokens.
    Gradients flow through the statistics, as in BatchNorm. Evaluation uses running statistics (exponential
    average with ``momentum``), so it works at any batch size, 1 included. They are kept per sequence length
    (up to ``max_len``; longer ones share the last), and a sequence is evaluated with those of its length (or
    the nearest length seen in training): batches bucketed by length (``max_tokens`` batching) make the
    training statistics depend on the length, and one average over all lengths matched none of them (SST-2,
    docs/ablations.md: 2.75 points below LayerNorm with one set, 0.3 with a set per length).

    Causal stacks (``causal=True``, the self-attention stacks of decoders): statistics of the whole batch
    would let position ``t`` see later positions. Position ``t`` is normalised with the statistics of the
    batch's causal prefix instead, the real tokens at positions ``<= t`` of every sequence, with gradients
    through them (:func:`zoo.nn.prefix_stats.prefix_statistics`). Those statistics depend on ``t`` (early
    positions see little context and few tokens), so the running statistics are kept per position (up to
    ``max_len``; later positions share the last) and evaluation normalises position ``t`` with its own.
    Measured on Tiny Shakespeare (docs/ablations.md): running statistics alone in the forward pass, with or
    without an approximate backward pass, and prefix statistics evaluated with position-independent running
    statistics all ended 10% or more above LayerNorm's validation loss; this scheme ends about 6% above, and the
    same scheme without the centring within 0.4% (the gap is the centring with its gradient, not the noise of
    early positions' statistics).

    Args:
        d_model: ``D``.
        causal: use the causal scheme above.
        max_len: positions (causal) or sequence lengths (encoders) with their own running statistics.
        bias: learn a shift (``model.bias``).
        momentum: weight of the new batch in the running statistics.
        eps: added to the variance.
    """

    def __init__(
        self,
        d_model: int,
        causal: bool = False,
        max_len: int = 1024,
        bias: bool = True,
        momentum: float = 0.1,
        eps: float = 1e-5,
    ) -> None:
        super().__init__()
        self.causal, self.momentum, self.eps = causal, momentum, eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model)) if bias else None
        self.register_buffer("running_mean", torch.zeros(max_len, d_model))
        self.register_buffer("running_var", torch.ones(max_len, d_model))
        if not causal:  # which sequence lengths have running statistics yet
            self.register_buffer("seen", torch.zeros(max_len, dtype=torch.bool))

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args, **kwargs) -> None:
        """Encoder checkpoints from before the statistics per length (one ``(D,)`` set) still load: every
        length gets that set."""
        mean = state_dict.get(f"{prefix}running_mean")
        if not self.causal and mean is not None and mean.dim() == 1:
            for name in ("running_mean", "running_var"):
                state_dict[prefix + name] = state_dict[prefix + name].expand_as(self.running_mean).clone()
            state_dict[f"{prefix}seen"] = torch.ones_like(self.seen)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def _running(self, offset: int, length: int, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
        """Causal: the running mean and variance for ``length`` positions from ``offset``, ``(T, D)`` each
        (positions past ``max_len`` take the last one's)."""
        positions = torch.arange(offset, offset + length, device=self.running_mean.device)
        positions = positions.clamp(max=len(self.running_mean) - 1)
        return self.running_mean[positions].to(dtype), self.running_var[positions].to(dtype)

    def _length_rows(self, real: Tensor) -> Tensor:
        """Encoders: the row of the running statistics of each sequence, ``(B,)``: its length in real tokens
        (``max_len`` and longer share the last row)."""
        lengths = real.sum(dim=(1, 2)).long()
        return (lengths - 1).clamp(min=0, max=len(self.running_mean) - 1)

    def _running_by_length(self, real: Tensor, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
        """Encoders: each sequence's running mean and variance, ``(B, 1, D)``: those of its length, or of the
        nearest length that training has seen."""
        rows, seen = self._length_rows(real), self.seen.nonzero().squeeze(-1)
        if len(seen):
            rows = seen[(rows[:, None] - seen[None, :]).abs().argmin(dim=1)]
        return self.running_mean[rows, None].to(dtype), self.running_var[rows, None].to(dtype)

    @torch.no_grad()
    def _update_running(self, offset: int, count: Tensor, mean: Tensor, var: Tensor, real: Tensor) -> None:
        """Move the running statistics towards the batch's: at each position below ``max_len`` where some
        sequence has a real token (causal), or at the length of each sequence of the batch with a real token
        (encoders; a length seen for the first time takes the batch's statistics). A position that is padding
        in every sequence keeps its running statistics (its prefix statistics are an earlier position's, of no
        token at it), and so does the length-1 row for a sequence of padding only."""
        if not self.causal:
            # rows repeat when sequences share a length; every write of a row is then the same (no device sync)
            rows, any_real = self._length_rows(real), real.sum(dim=(1, 2)) > 0
            weight = torch.where(self.seen[rows], self.momentum, 1.0) * any_real
            weight = weight.to(self.running_mean.dtype)[:, None]
            self.running_mean[rows] = self.running_mean[rows].lerp(mean.detach().to(weight.dtype), weight)
            self.running_var[rows] = self.running_var[rows].lerp(var.detach().to(weight.dtype), weight)
            self.seen[rows] |= any_real
            return
        present = count > 0 if real is None else real.sum(0) > 0  # (T, 1): a real token at position t
        weight = self.momentum * present.to(mean.dtype)
        kept = max(0, min(len(mean), len(self.running_mean) - offset))
        running_mean, running_var = self.running_mean[offset : offset + kept], self.running_var[offset : offset + kept]
        mean, var, weight = mean[:kept], var[:kept], weight[:kept]
        running_mean.lerp_(mean.detach().to(running_mean.dtype), weight.to(running_mean.dtype))
        running_var.lerp_(var.detach().to(running_var.dtype), weight.to(running_var.dtype))

    def _training_statistics(self, x: Tensor, padding_mask: Tensor | None, offset: int) -> tuple[Tensor, Tensor]:
        """The batch's mean and variance (causal: its prefix statistics, ``(T, D)``; encoders ``(D,)``), after
        updating the running statistics from them. A causal stack without padding (a language model) needs
        no mask: every prefix has tokens."""
        real = None if self.causal and padding_mask is None else real_tokens(x, padding_mask)
        statistics = prefix_statistics if self.causal else batch_statistics
        count, mean, var = statistics(x, real)
        if self.causal and real is not None:
            running_mean, running_var = self._running(offset, x.shape[1], x.dtype)
            empty = count == 0  # no real token to take statistics of: keep the running ones
            mean, var = torch.where(empty, running_mean, mean), torch.where(empty, running_var, var)
        self._update_running(offset, count, mean, var, real)
        return mean, var

    def forward(self, x: Tensor, padding_mask: Tensor | None = None, offset: int = 0) -> Tensor:
        """Normalise each feature.

        Args:
            x: ``(B, T, D)``.
            padding_mask: ``(B, T)`` bool, ``True`` at padding, or ``None``.
            offset: the position of ``x[:, 0]`` (tokens already decoded, with a key/value cache).

        Returns:
            ``(B, T, D)``.

        Raises:
            ValueError: a ``padding_mask`` that is not bool or not ``(B, T)``.
        """
        check_padding_mask(padding_mask, "padding_mask", tuple(x.shape[:2]), "(B, T)")
        dtype = x.dtype
        x = x.float() if x.element_size() < 4 else x  # sums of squares need float32 under bf16/fp16
        if self.training:
            mean, var = self._training_statistics(x, padding_mask, offset)
        elif self.causal:
            mean, var = self._running(offset, x.shape[1], x.dtype)
        else:
            mean, var = self._running_by_length(real_tokens(x, padding_mask), x.dtype)
        # weight * (x - mean) / sqrt(var + eps) + bias as x * scale + shift: two passes over the (B, T, D)
        # activations (and their gradients) instead of four; scale and shift are (T, D) or (D,)
        scale = torch.rsqrt(var + self.eps) * self.weight
        shift = -mean * scale if self.bias is None else self.bias - mean * scale
        return torch.addcmul(shift, x, scale).to(dtype)
