"""One-line errors for what Lightning raises on a bad setting: a missing accelerator, weights that do not fit,
Lightning's own checks of the trainer's arguments."""

from __future__ import annotations

import os
import traceback

ACCELERATOR_MISSING = ("No supported gpu backend found", "can not run on your system")  # Lightning's words


def _accelerator_missing(accelerator: object) -> str:
    """One line for ``trainer.accelerator`` naming a device this machine lacks, and the ones it has."""
    from lightning.pytorch.accelerators import AcceleratorRegistry

    here = sorted(name for name in AcceleratorRegistry.available_accelerators() if _available(name))
    return (
        f"trainer.accelerator={accelerator!r} is not available on this machine (no such device is visible to "
        f"torch); valid here: {', '.join(repr(name) for name in [*here, 'auto'])}"
    )


def _available(accelerator: str) -> bool:
    from lightning.pytorch.accelerators import AcceleratorRegistry

    try:
        return bool(AcceleratorRegistry[accelerator]["accelerator"].is_available())
    except Exception:  # an accelerator whose package is missing (tpu without torch_xla) is not available
        return False


def _weights_mismatch(ckpt_path: str | None, message: str) -> str:
    """One line for a checkpoint whose weights do not fit the network this command builds (torch's message
    lists every tensor): the first mismatch, and the usual cause."""
    lines = [
        line.strip()
        for line in message.splitlines()
        if line.strip().startswith(("size mismatch", "Missing", "Unexpected"))
    ]
    first = lines[0].rstrip(".") if lines else message.splitlines()[0]
    return (
        f"ckpt_path={ckpt_path!r}: its weights do not fit the network of this command ({first}); a checkpoint is "
        f"evaluated with its run's data and tokenizer (changed data files, another data.path or data.vocab_size "
        f"give another vocabulary) and its architecture"
    )


def _raised_in_lightning(error: BaseException) -> bool:
    """Whether ``error`` was raised by Lightning's own code (its checks of the trainer's arguments), not by
    the zoo's: a ``TypeError`` of the zoo's is a bug and keeps its traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and f"{os.sep}lightning{os.sep}" in frames[-1].filename


def _root_cause(error: BaseException) -> BaseException:
    """The error a class raised itself, unwrapped from jsonargparse's messages around it (of a union type, or of
    a link's function: :meth:`ZooCLI._vocab_size`, which prepares the data)."""
    wrappers = ("Does not validate against any of the Union subtypes", "Call to compute_fn of link")
    while str(error).startswith(wrappers):
        inner = error.__cause__ or error.__context__
        if inner is None:
            break
        error = inner
    return error
