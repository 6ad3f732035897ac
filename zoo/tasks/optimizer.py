"""The optimiser of every task: AdamW with its learning-rate schedule, the checks of its knobs, PyTorch's fused
AdamW where it runs, and Lightning's gradient clipping where it is plain."""

from __future__ import annotations

import math

import lightning.pytorch as pl
import torch
from lightning.pytorch.plugins.precision import MixedPrecision, Precision
from lightning.pytorch.utilities.enums import GradClipAlgorithmType
from torch import nn

from zoo.messages import check_at_least, check_between
from zoo.registry import SCHEDULES
from zoo.tasks.schedules import schedule_factor


def plain_norm_clipping(trainer: pl.Trainer, clip_val: float | None, algorithm: str | None) -> bool:
    """Whether Lightning would clip by norm with ``torch.nn.utils.clip_grad_norm_`` over all of the optimiser's
    parameters: a positive ``clip_val``, the norm algorithm, and a precision plugin that clips as the base one
    does (32-bit, bf16/fp16 mixed; not FSDP's or DeepSpeed's)."""
    plugin = type(trainer.precision_plugin)
    plain = all(getattr(plugin, name) is getattr(Precision, name) for name in ("clip_grad_by_norm", "main_params"))
    return (
        bool(clip_val)
        and clip_val > 0
        and GradClipAlgorithmType(algorithm or trainer.gradient_clip_algorithm or "norm") == GradClipAlgorithmType.NORM
        and plain
        and plugin.clip_gradients in (Precision.clip_gradients, MixedPrecision.clip_gradients)
    )


def fused_optimizer_supported(parameters, trainer: pl.Trainer | None = None) -> bool:
    """Whether AdamW's fused kernel (one pass over all parameters, instead of a loop of small ops; it also drops
    a non-finite step on the device, :mod:`zoo.training.nonfinite_loss`) can run: floating-point parameters held
    as plain tensors on the CPU or a CUDA device (not FSDP's sharded ones), no ``GradScaler`` (``16-mixed``: a
    fused step unscales the gradients itself, after they were checked and clipped), and under ``bf16-mixed`` no
    clipping left to Lightning (by value: it refuses to clip the gradients of a fused optimizer under autocast;
    by norm the zoo clips them itself, :func:`plain_norm_clipping`)."""
    precision = str(trainer.precision) if trainer is not None else "32-true"
    clipped_by_lightning = (
        trainer is not None
        and bool(trainer.gradient_clip_val)
        and not plain_norm_clipping(trainer, trainer.gradient_clip_val, trainer.gradient_clip_algorithm)
    )
    if precision == "16-mixed" or (precision.endswith("-mixed") and clipped_by_lightning):
        return False
    return all(
        type(p) in (torch.Tensor, nn.Parameter) and p.device.type in ("cpu", "cuda") and p.is_floating_point()
        for p in parameters
    )


def check_optimizer_knobs(hparams) -> None:
    """Raise ``ValueError`` naming the field for a bad ``model.lr``, ``eps``, ``warmup_steps``, ``betas``,
    ``min_lr_ratio``, ``weight_decay`` or ``schedule``."""
    SCHEDULES.check(hparams.schedule)
    for field in ("lr", "eps"):
        if hparams[field] <= 0:
            raise ValueError(f"model.{field}={hparams[field]} is not valid; it must be positive")
    check_at_least("model.warmup_steps", hparams.warmup_steps, 0)
    for beta in hparams.betas:
        check_between("model.betas", beta, 0.0, 1.0)
    check_between("model.min_lr_ratio", hparams.min_lr_ratio, 0.0, 1.0, high_inclusive=True)
    check_between("model.weight_decay", hparams.weight_decay, 0.0, float("inf"))


def adamw_with_schedule(task: pl.LightningModule) -> dict:
    """AdamW (Loshchilov and Hutter 2019) with weight decay on matrices only, and the task's learning-rate
    schedule stepped every optimiser step (:func:`zoo.tasks.schedules.schedule_factor`), as Lightning's
    ``configure_optimizers`` returns them."""
    decay = [p for p in task.parameters() if p.requires_grad and p.dim() >= 2]
    no_decay = [p for p in task.parameters() if p.requires_grad and p.dim() < 2]
    hp = task.hparams
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": hp.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=hp.lr,
        betas=tuple(hp.betas),
        eps=hp.eps,
        fused=fused_optimizer_supported(task.parameters(), task.trainer),
    )
    total = task.trainer.estimated_stepping_batches  # inf for a time budget: only schedules with no end
    total = int(total) if math.isfinite(total) else 0
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: schedule_factor(hp.schedule, step, hp.warmup_steps, total, hp.min_lr_ratio)
    )
    return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
