"""Evaluation metrics keep their own dtypes (float32 sums, int64 counts) whatever ``trainer.precision`` casts
the module to.

Under ``--trainer.precision bf16-true`` (``16-true``) Lightning casts the whole LightningModule with
``module.to(dtype=torch.bfloat16)`` (``HalfPrecision.convert_module``), and torchmetrics moves its states with
any ``.to`` (it guards only ``.half()``, ``.float()``, ``.double()`` and ``.type()``): the validation sums became
bfloat16, whose 8 mantissa bits round each batch's loss added to a sum of thousands away (a validation loss of
4.625 where float32 reads 4.963), and float16 sums overflowed to ``inf`` past 65504.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from lightning_utilities import apply_to_collection
from torch import Tensor, nn
from torchmetrics import Metric, SumMetric

CACHES = ("_computed", "_forward_cache")  # torchmetrics' cached results, cast with the states


def apply_keeping_metric_dtypes(module: nn.Module, apply: Callable[[], nn.Module]) -> nn.Module:
    """Run ``apply`` (``module``'s ``nn.Module._apply``: ``.to``, ``.cuda``, ...), then give every metric in
    ``module`` back each state whose dtype it changed, as it was (the values before the cast, not a round
    trip through bfloat16), on the device ``apply`` moved the metric to.

    Returns:
        what ``apply`` returned.
    """
    metrics = [m for m in module.modules() if isinstance(m, Metric)]
    before = [_snapshot(metric) for metric in metrics]
    out = apply()
    for metric, (states, defaults, caches, dtype) in zip(metrics, before, strict=True):
        device = metric.device
        for key, value in states.items():
            setattr(metric, key, _kept(getattr(metric, key), value, device))
        for key, value in defaults.items():
            metric._defaults[key] = _kept(metric._defaults[key], value, device)
        for key, value in caches.items():
            setattr(metric, key, apply_to_collection(value, Tensor, Tensor.to, device))
        metric._dtype = dtype
    return out


def _snapshot(metric: Metric) -> tuple[dict, dict, dict, object]:
    states = {key: getattr(metric, key) for key in metric._defaults}
    caches = {key: getattr(metric, key) for key in CACHES if getattr(metric, key, None) is not None}
    return states, dict(metric._defaults), caches, metric.dtype


def _kept(now: Tensor | list, before: Tensor | list, device) -> Tensor | list:
    """``before`` on ``device`` where ``now`` (its cast) changed its dtype; ``now`` otherwise."""
    if isinstance(now, Tensor):
        return before.to(device) if now.dtype != before.dtype else now
    return [_kept(n, b, device) for n, b in zip(now, before, strict=True)]


def count_metric() -> SumMetric:
    """A sum of counts (tokens) held as int64: exact at any size, where a float32 sum stops counting at 2^24."""
    return SumMetric().set_dtype(torch.int64)
