"""What makes a file a zoo checkpoint, checked in one place for every command that reads one (``fit``,
``validate``, ``test``, ``predict`` and the inference commands) before anything else loads it."""

from __future__ import annotations

import zipfile
from pathlib import Path


class CheckpointFileError(ValueError):
    """A file that is not a zoo checkpoint; the message names the field, the file and what it lacks."""


def checked_checkpoint(checkpoint: object, ckpt_path: str, field: str = "ckpt_path") -> dict:
    """``checkpoint`` (the loaded contents of ``ckpt_path``) if it is a zoo checkpoint: a dict written by
    Lightning (``pytorch-lightning_version``) with weights (a non-empty ``state_dict``) and the zoo task that
    made them (``hyper_parameters._class_path``).

    Raises:
        CheckpointFileError: naming ``field``, the file and the first thing it lacks.
    """
    if not isinstance(checkpoint, dict):
        kind = type(checkpoint).__name__
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a Lightning checkpoint (it holds a {kind})")
    if not isinstance(checkpoint.get("state_dict"), dict) or not checkpoint["state_dict"]:
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a Lightning checkpoint (no state_dict of weights)")
    hyper_parameters = checkpoint.get("hyper_parameters")
    if "pytorch-lightning_version" not in checkpoint or not isinstance(hyper_parameters, dict):
        raise CheckpointFileError(
            f"{field}={ckpt_path!r} is not a checkpoint that Lightning wrote (no pytorch-lightning_version or "
            f"hyper_parameters)"
        )
    if "_class_path" not in hyper_parameters:
        raise CheckpointFileError(
            f"{field}={ckpt_path!r} is not a zoo checkpoint (no task class in its hyper_parameters)"
        )
    return checkpoint


def read_checkpoint_file(ckpt_path: str, field: str = "ckpt_path", mmap: bool = False) -> dict:
    """The contents of the zoo checkpoint at ``ckpt_path``, loaded with ``weights_only=True`` onto the CPU
    (``mmap``: memory-mapped, the tensors not read).

    Raises:
        CheckpointFileError: in one line naming ``field`` and the file, if it is missing, not a file written by
            ``torch.save`` (empty, truncated, another format), or not a zoo checkpoint (:func:`checked_checkpoint`).
    """
    import torch

    if not Path(ckpt_path).is_file():
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a file")
    if not zipfile.is_zipfile(ckpt_path):
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a checkpoint (not a file written by torch.save)")
    try:
        checkpoint = torch.load(ckpt_path, map_location="cpu", weights_only=True, mmap=mmap)
    except Exception as error:  # torch raises many kinds for a damaged file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a checkpoint that zoo can load ({reason})") from None
    return checked_checkpoint(checkpoint, ckpt_path, field)
