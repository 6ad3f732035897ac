"""Knobs whose value a run cannot honour as given, found before training: each is said in one line and recorded
as used (``summary.json``'s ``adjusted``), so that no run holds one value in its config and trains with another.

The values that can never be honoured are refused where they are checked instead (e.g. ``data.vocab_size`` below
the byte-level alphabet of ``bpe``, :func:`zoo.data.tokenizer.check_vocab_size`); what is left here depends on the
data or the machine: a train split with fewer distinct pieces than ``data.vocab_size`` (or a WordPiece alphabet
above it), a train split smaller than ``data.batch_size``, a run shorter than its warm-up (``model.lr`` never
reached), a precision Lightning swaps on a CPU.
"""

from __future__ import annotations

import random
import warnings

from lightning.fabric.connector import _convert_precision_to_unified_args

from zoo.data.batching import split_to_at_least
from zoo.messages import said
from zoo.tasks.recurrence import knobs_not_applying
from zoo.tasks.schedules import schedule_factor


def adjusted_knobs(datamodule, hparams, trainer, precision_given) -> dict[str, dict]:
    """The knobs run with another value than the configuration's.

    Args:
        datamodule: a prepared :class:`zoo.data.base.ZooDataModule`.
        hparams: the task's hyperparameters (``lr``, ``schedule``, ``warmup_steps``, ``min_lr_ratio``).
        trainer: the Lightning trainer (``num_devices``, ``num_nodes``, ``max_steps``, ``precision``).
        precision_given: ``trainer.precision`` as configured (``None``: Lightning's default).

    Returns:
        Field -> ``{"given": ..., "used": ..., "why": str}``, in the order said.
    """
    found = {}
    found.update(_vocab_size(datamodule))
    found.update(_batch_size(datamodule, trainer.num_devices * trainer.num_nodes))
    found.update(_peak_lr(hparams, trainer.max_steps))
    with warnings.catch_warnings():  # Lightning's note on "16" and "bf16", said when the trainer was built
        warnings.simplefilter("ignore")
        unified = None if precision_given is None else _convert_precision_to_unified_args(precision_given)
    if unified is not None and unified != trainer.precision:
        why = "Lightning has no float16 autocast on a CPU and runs it as bf16-mixed"
        found["trainer.precision"] = {"given": precision_given, "used": trainer.precision, "why": why}
    return found


def _peak_lr(hparams, max_steps: int) -> dict[str, dict]:
    """``model.lr`` is the peak of the schedule, reached at ``model.warmup_steps``: a run that ends before it
    trains at most at a fraction of it."""
    if max_steps is None or max_steps < 1 or max_steps >= hparams.warmup_steps:
        return {}
    peak = max(
        schedule_factor(hparams.schedule, step, hparams.warmup_steps, max_steps, hparams.min_lr_ratio)
        for step in range(max_steps)
    )
    why = (
        f"trainer.max_steps={max_steps} ends before model.warmup_steps={hparams.warmup_steps}, so the learning "
        f"rate peaks at {peak:.1%} of it"
    )
    return {"model.lr": {"given": hparams.lr, "used": hparams.lr * peak, "why": why}}


def _vocab_size(datamodule) -> dict[str, dict]:
    if datamodule.tokenizers_given or datamodule.tokenizer_kind == "char":  # a checkpoint's; char takes none
        return {}
    given, used = datamodule.vocab_size, datamodule.num_tokens
    if used == given:
        return {}
    why = (
        f"the train split has no more pieces to merge into a {datamodule.tokenizer_kind} vocabulary"
        if used < given
        else "the characters of the train split (and their continuation pieces) alone take more tokens"
    )
    return {"data.vocab_size": {"given": given, "used": used, "why": f"{why}; model.vocab_size={used}"}}


def _batch_size(datamodule, world_size: int) -> dict[str, dict]:
    given = getattr(datamodule, "batch_size", None)
    if given is None:
        return {}
    examples = datamodule.num_examples("train")
    if examples >= given * world_size:  # a smaller batch is then the token budget's (data.max_tokens), as documented
        return {}
    sampler = datamodule.batch_sampler("train", train=True)
    largest = max(map(len, split_to_at_least(sampler.all_batches(random.Random(datamodule.seed)), world_size)))
    block_size = getattr(datamodule, "block_size", None)
    unit = f"blocks of data.block_size={block_size} tokens" if block_size else "examples"
    shared = f" shared over {world_size} ranks" if world_size > 1 else ""
    why = f"the train split has {examples} {unit}{shared}, so no batch holds more"
    return {"data.batch_size": {"given": given, "used": largest, "why": why}}


def say(adjusted: dict[str, dict]) -> list[str]:
    """One line per adjusted knob: ``zoo: data.vocab_size=100 is run as 260: <why>``."""
    return [
        f"zoo: {field}={said(knob['given'])} is run as {said(knob['used'])}: {knob['why']}"
        for field, knob in adjusted.items()
    ]


def not_applying_knobs(model) -> tuple[dict, list[str]]:
    """The knobs the other knobs of the task leave unused (:func:`zoo.tasks.recurrence.knobs_not_applying`): the
    record (``summary.json``'s ``not_applying``: every one for a recurrent network, the ones given another value
    than their default otherwise) and a line per knob that leaves some given ones unused, if any."""
    every, given = knobs_not_applying(type(model), model.hparams)
    recorded = list(every) if model.hparams["architecture"] == "rnn" else given
    record = {"not_applying": recorded} if recorded else {}
    by_cause: dict[str, list[str]] = {}
    for name in given:
        by_cause.setdefault(every[name], []).append(f"{name}={said(model.hparams[name.removeprefix('model.')])}")
    return record, [
        f"zoo: {cause}={said(model.hparams[cause.removeprefix('model.')])} does not use {', '.join(values)}: trained "
        f"without, recorded as not applying (summary.json's not_applying), and never a variation in compare"
        for cause, values in by_cause.items()
    ]
