"""Evaluation metrics keep their own dtypes (float32 sums, int64 counts) whatever ``trainer.precision`` casts
the module to.

Under ``--trainer.precision bf16-true`` (``16-true``) Lightning casts the whole LightningModule with
``module.to(dtype=torch.bfloat16)`` (``HalfPrecision.convert_module``), and torchmetrics moves its states with
any ``.to`` (it guards only ``.half()``, ``.float()``, ``.double()`` and ``.type()``). In bfloat16, whose 8 mantissa
bits round each batch's loss added to a sum of thousands away, a validation loss would read 4.625 where float32
reads 4.963, and float16 sums overflow to ``inf`` past 65504; here the states stay as they were made.

The sums and means are made by :func:`sum_metric`, :func:`mean_metric` and :func:`count_metric`, which update
without reading a value back to the host (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from lightning_utilities import apply_to_collection
from torch import Tensor, nn
from torchmetrics import MeanMetric, Metric, SumMetric

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


# torchmetrics' aggregations check each update for NaN (nan_strategy="warn": ``bool(isnan(x).any())``, a read
# that makes the host wait for the device at every batch) and then leave the NaN out of the sum. A NaN loss
# must show in the number logged, not vanish from it: no check, the NaN is summed.
NO_NAN_CHECK = "disable"


def sum_metric() -> SumMetric:
    """A float32 sum whose updates stay on the device (no NaN check: a NaN is summed, and shows)."""
    return SumMetric(nan_strategy=NO_NAN_CHECK)


def mean_metric() -> MeanMetric:
    """An unweighted mean whose updates stay on the device (no NaN check: a NaN is averaged, and shows). Not for
    a weighted mean: without the check, torchmetrics 1.9 replaces every weight by 1 (a sum and a count do it)."""
    return MeanMetric(nan_strategy=NO_NAN_CHECK)


def count_metric() -> SumMetric:
    """A sum of counts (tokens) held as int64: exact at any size, where a float32 sum stops counting at 2^24."""
    return sum_metric().set_dtype(torch.int64)
