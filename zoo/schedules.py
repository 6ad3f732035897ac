"""Learning-rate schedules as multipliers of the peak learning rate, per optimiser step."""

from __future__ import annotations

import math

from zoo.nn.registry import check_choice

SCHEDULES = ["inverse_sqrt", "cosine", "constant"]


def inverse_sqrt(step: int, warmup_steps: int) -> float:
    """Linear warm-up, then decay with the inverse square root of the step (Vaswani et al. 2017, eq. 3):
    lrate = d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5), here scaled so that the peak, reached at
    ``warmup_steps``, is 1 (the paper's peak is d_model^-0.5 * warmup_steps^-0.5)."""
    step = step + 1
    warmup = max(1, warmup_steps)
    return min(step / warmup, math.sqrt(warmup / step))


def cosine(step: int, warmup_steps: int, total_steps: int, min_ratio: float = 0.1) -> float:
    """Linear warm-up to 1, then half a cosine down to ``min_ratio`` at ``total_steps`` (Loshchilov and
    Hutter 2017, without restarts), flat afterwards."""
    step = step + 1
    if step <= warmup_steps:
        return step / max(1, warmup_steps)
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def schedule_factor(name: str, step: int, warmup_steps: int, total_steps: int, min_ratio: float) -> float:
    """The multiplier of the peak learning rate at ``step`` (counted from 0) for schedule ``name``.

    Raises:
        ValueError: for an unknown ``name`` (field ``model.schedule``).
    """
    check_choice("model.schedule", name, SCHEDULES)
    if name == "inverse_sqrt":
        return inverse_sqrt(step, warmup_steps)
    if name == "cosine":
        return cosine(step, warmup_steps, total_steps, min_ratio)
    return min(1.0, (step + 1) / max(1, warmup_steps))
