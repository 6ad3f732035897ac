"""``python -m zoo average``: the element-wise mean of the weights of several checkpoints of one run (the
last N, usually: a free BLEU gain in fairseq's recipes; Vaswani et al. 2017, section 6.1, average the last
5 or 20)."""

from __future__ import annotations

import argparse
from pathlib import Path

from zoo.inference.command import OneLineParser, check_checkpoint, check_out_file, main_of
from zoo.inference.errors import InferenceError


def arguments() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m zoo average", description="Average the weights of checkpoints of one model.")
    p.add_argument("--ckpt_path", nargs="+", required=True, help="two or more checkpoints of the same model")
    p.add_argument("--out", required=True, help="the averaged checkpoint to write")
    return p


def average_checkpoints(paths: list[str]) -> dict:
    """The last checkpoint of ``paths`` with each floating-point weight replaced by the mean over all of them
    (integer buffers are the last one's); without optimiser and scheduler states (an average is evaluated,
    not trained on), with ``averaged_from`` listing ``paths``.

    Raises:
        InferenceError: for fewer than two paths, a file that is not a checkpoint, or checkpoints of different
            models.
    """
    import torch

    from zoo.inference.checkpoint import read_checkpoint

    _check_count(paths)
    checkpoints = [read_checkpoint(p, field="--ckpt_path") for p in paths]
    states = [c["state_dict"] for c in checkpoints]
    for path, checkpoint in zip(paths[1:], checkpoints[1:], strict=True):
        if differs := _other_model(checkpoint, checkpoints[0]):
            raise InferenceError(
                f"{path!r} holds another model than {paths[0]!r} ({differs}); average checkpoints of one run"
            )
    averaged = {
        key: torch.stack([s[key].double() for s in states]).mean(0).to(value.dtype)
        if value.is_floating_point()
        else value
        for key, value in states[-1].items()
    }
    result = {k: v for k, v in checkpoints[-1].items() if k not in ("optimizer_states", "lr_schedulers")}
    return {**result, "state_dict": averaged, "averaged_from": [str(p) for p in paths]}


def _check_count(paths: list[str]) -> None:
    if len(paths) < 2:
        raise InferenceError(f"--ckpt_path needs two or more checkpoints to average, got {len(paths)}")


def _other_model(checkpoint: dict, first: dict) -> str | None:
    """How ``checkpoint`` differs from ``first`` as a model, or ``None``: its task, the architecture knobs that
    differ (``d_ff``: other shapes; ``pe``, ``norm_position``: same shapes, other functions), its tokenizers (the
    same ids for other tokens), or else the first weight of another name or shape."""
    from zoo.data.tokenizer import checkpoint_tokenizers
    from zoo.runs.checkpoint_file import import_class

    saved, wanted = checkpoint.get("hyper_parameters") or {}, first.get("hyper_parameters") or {}
    task = saved.get("_class_path")
    if task != wanted.get("_class_path"):
        return f"{_task_of(task)}, not {_task_of(wanted.get('_class_path'))}"
    knobs = import_class(task).architecture if task else ()
    differs = [
        f"model.{k}={saved.get(k, 'unset')!r}, not {wanted.get(k, 'unset')!r}"  # unset: a knob added since
        for k in knobs
        if saved.get(k) != wanted.get(k)
    ]
    if checkpoint_tokenizers(checkpoint) != checkpoint_tokenizers(first):
        differs.append("another tokenizer")
    return ", ".join(differs) or _other_weight(checkpoint["state_dict"], first["state_dict"])


def _other_weight(state: dict, reference: dict) -> str | None:
    """The first weight of ``state`` that ``reference`` lacks or has in another shape (and the reverse), or
    ``None``."""
    for key in [*state, *(k for k in reference if k not in state)]:
        if key not in reference or key not in state:
            return f"weight {key} only in {'this one' if key in state else 'the first'}"
        if state[key].shape != reference[key].shape:
            return f"weight {key} of shape {tuple(state[key].shape)}, not {tuple(reference[key].shape)}"
    return None


def _task_of(class_path: str | None) -> str:
    return f"a {class_path.rpartition('.')[2]}" if class_path else "no task recorded (no hyper_parameters)"


def checked_arguments(argv: list[str]) -> argparse.Namespace:
    """The arguments of ``average`` (``argv``: those after it), checked as far as the checkpoints need not be
    read: ``--out`` a new file in a folder that exists, and none of the checkpoints; two or more checkpoints,
    each a file, each named once.

    Raises:
        InferenceError: a bad argument, in one line.
    """
    args = arguments().parse_args(argv)
    check_out_file(args.out)
    if any(Path(args.out).resolve() == Path(path).resolve() for path in args.ckpt_path):
        raise InferenceError(f"--out={args.out!r} is one of the checkpoints averaged; write the average elsewhere")
    resolved = [Path(path).resolve() for path in args.ckpt_path]
    if len(set(resolved)) < len(resolved):
        twice = next(path for path, r in zip(args.ckpt_path, resolved, strict=True) if resolved.count(r) > 1)
        raise InferenceError(f"--ckpt_path lists {twice!r} twice; each checkpoint is averaged once")
    if Path(args.out).exists():  # a run's last.ckpt overwritten by weights only could never be resumed
        raise InferenceError(f"--out={args.out!r} exists; name a new file (an average never overwrites one)")
    _check_count(args.ckpt_path)
    for path in args.ckpt_path:
        check_checkpoint(path, "--ckpt_path")
    return args


def run(argv: list[str]) -> None:
    args = checked_arguments(argv)
    import torch  # seconds, after the arguments are checked

    torch.save(average_checkpoints(args.ckpt_path), args.out)
    print(f"{args.out}: the average of {len(args.ckpt_path)} checkpoints")


main = main_of("average", run)
