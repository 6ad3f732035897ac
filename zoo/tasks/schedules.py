"""Learning-rate schedules as multipliers of the peak learning rate, per optimiser step, picked by
``model.schedule``. Each is ``schedule(step, warmup_steps, total_steps, min_ratio) -> float``."""

from __future__ import annotations

import inspect
import math

from zoo.registry import SCHEDULES


@SCHEDULES.register("inverse_sqrt", synonyms=("rsqrt", "noam", "inv_sqrt", "inverse_square_root"))
def inverse_sqrt(step: int, warmup_steps: int, total_steps: int = 0, min_ratio: float = 0.0) -> float:
    """Linear warm-up, then decay with the inverse square root of the step (Vaswani et al. 2017, eq. 3):
    lrate = d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5), here scaled so that the peak, reached at
    ``warmup_steps``, is 1 (the paper's peak is d_model^-0.5 * warmup_steps^-0.5). ``total_steps`` and
    ``min_ratio`` are unused.

    Example:
        >>> inverse_sqrt(99, 100), inverse_sqrt(399, 100)
        (1.0, 0.5)
    """
    step = step + 1
    warmup = max(1, warmup_steps)
    return min(step / warmup, math.sqrt(warmup / step))


@SCHEDULES.register("cosine", synonyms=("cos", "cosine_annealing", "cosine_decay", "cosine_with_warmup"))
def cosine(step: int, warmup_steps: int, total_steps: int, min_ratio: float = 0.1) -> float:
    """Linear warm-up to 1, then half a cosine down to ``min_ratio`` at ``total_steps`` (Loshchilov and
    Hutter 2017, without restarts), flat afterwards."""
    step = step + 1
    if step <= warmup_steps:
        return step / max(1, warmup_steps)
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


@SCHEDULES.register("constant", synonyms=("const", "constant_with_warmup", "flat"))
def constant(step: int, warmup_steps: int, total_steps: int = 0, min_ratio: float = 0.0) -> float:
    """Linear warm-up to 1, then 1."""
    return min(1.0, (step + 1) / max(1, warmup_steps))


def schedule_factor(name: str, step: int, warmup_steps: int, total_steps: int, min_ratio: float) -> float:
    """The multiplier of the peak learning rate at ``step`` (counted from 0) for schedule ``name``.

    Raises:
        ValueError: for an unknown ``name`` (field ``model.schedule``).
    """
    return SCHEDULES.get(name)(step, warmup_steps, total_steps, min_ratio)


def needs_total_steps(name: str) -> bool:
    """Whether schedule ``name`` needs the run's number of steps: its ``total_steps`` has no default
    (``cosine`` decays to ``min_ratio`` at the last step; ``constant`` and ``inverse_sqrt`` need no end).

    Raises:
        ValueError: for an unknown ``name`` (field ``model.schedule``).
    """
    parameter = inspect.signature(SCHEDULES.get(name)).parameters["total_steps"]
    return parameter.default is inspect.Parameter.empty


def changed_horizon(hparams, step: int, then_steps: int | None, now_steps: int | None) -> str | None:
    """What a resume with another ``trainer.max_steps`` does to a schedule that ends at the last step: the
    schedule is a function of the budget, so the learning rate at the resumed step jumps to its value on the
    new horizon (a longer budget raises it, a shorter one lowers it). ``None`` when nothing changes.

    Args:
        hparams: the task's hyperparameters (``lr``, ``schedule``, ``warmup_steps``, ``min_lr_ratio``).
        step: the optimiser step the run resumes at.
        then_steps: the run's recorded ``trainer.max_steps``; ``now_steps``: the command's.

    Example:
        >>> from types import SimpleNamespace
        >>> hp = SimpleNamespace(lr=1e-3, schedule="cosine", warmup_steps=0, min_lr_ratio=0.1)
        >>> print(changed_horizon(hp, 1000, 2000, 4000))  # doctest: +NORMALIZE_WHITESPACE
        the cosine schedule now ends at step 4000 instead of 2000: the learning rate at step 1000 is 8.68e-04,
        not 5.49e-04
    """
    valid = [isinstance(n, int) and n > 0 for n in (then_steps, now_steps)]
    if not all(valid) or then_steps == now_steps or not needs_total_steps(hparams.schedule):
        return None
    rates = [
        hparams.lr * schedule_factor(hparams.schedule, step, hparams.warmup_steps, total, hparams.min_lr_ratio)
        for total in (now_steps, then_steps)
    ]
    if math.isclose(*rates):
        return None
    return (
        f"the {hparams.schedule} schedule now ends at step {now_steps} instead of {then_steps}: the learning rate at "
        f"step {step} is {rates[0]:.2e}, not {rates[1]:.2e}"
    )
