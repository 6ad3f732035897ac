"""What the commands on a trained model share: an argument parser that fails in one line, the checkpoint
and device arguments, and an entry point that turns errors into exit status 2.

Imports no torch: each command checks its arguments with these, then imports the modules of the model
(torch, Lightning: seconds), so that a bad argument is told at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from zoo.cli import tool_parser
from zoo.cli.errors import print_error, raised_on_purpose
from zoo.inference.errors import InferenceError
from zoo.runs.checkpoint_file import CheckpointFileError, check_is_file


class OneLineParser(tool_parser.OneLineParser):
    error_class = InferenceError


def parser(command: str, description: str) -> argparse.ArgumentParser:
    """A parser for ``python -m zoo <command>`` with ``--ckpt_path`` and ``--device``."""
    p = OneLineParser(prog=f"python -m zoo {command}", description=description)
    p.add_argument("--ckpt_path", required=True, help="a checkpoint written by `python -m zoo fit`")
    p.add_argument("--device", help="where the model runs (default: cuda when available, else cpu)")
    return p


def check_checkpoint(ckpt_path: str, field: str = "ckpt_path") -> None:
    """Raise :class:`InferenceError` naming ``field`` if ``ckpt_path`` is not a file; what it holds is checked
    as it loads (:func:`zoo.inference.checkpoint.read_checkpoint`)."""
    try:
        check_is_file(ckpt_path, field)
    except CheckpointFileError as error:
        raise InferenceError(str(error)) from None


def _is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is an allocation that failed (CPU allocator, CUDA, or Python's own); torch's own kind
    only where torch was loaded (no model ran otherwise)."""
    torch = sys.modules.get("torch")
    out_of_memory = (MemoryError, torch.OutOfMemoryError) if torch is not None else MemoryError
    return isinstance(error, out_of_memory) or "can't allocate memory" in str(error)


def _out_of_memory(error: BaseException) -> str:
    """The line for a decoding that ran out of memory: the allocator's own words, and the settings that size it."""
    said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return (
        f"not enough memory for these settings ({said}); lower --beam_size, --num_samples, --batch_size or "
        f"--max_new_tokens"
    )


def check_out_file(out: str) -> None:
    """Raise :class:`InferenceError` naming ``--out`` where the folder of the file it names is missing, under a
    file, or not writable by this user."""
    folder = Path(out).expanduser().parent
    if not folder.is_dir():
        above = next(parent for parent in (folder, *folder.absolute().parents) if parent.exists())
        why = f"{str(above)!r} is a file" if not above.is_dir() else f"the folder {str(folder)!r} does not exist"
        raise InferenceError(f"--out={out!r}: {why}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InferenceError(f"--out={out!r}: this user cannot write in the folder {str(folder)!r}")


def read_text(path: str | None, where: str) -> str:
    """The text of the file ``path``, or of stdin (``None``), decoded as UTF-8 without a leading byte-order mark.

    Raises:
        InferenceError: naming ``where`` and the first byte that is not UTF-8.
    """
    if path is not None:
        data = Path(path).read_bytes()
    elif hasattr(sys.stdin, "buffer"):
        data = sys.stdin.buffer.read()
    else:  # a text stream with no bytes below it (tests, notebooks)
        return checked_text(sys.stdin.read(), where)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InferenceError(
            f"{where} is not UTF-8 text (byte {error.start}: {data[error.start]:#04x}); zoo reads text as UTF-8"
        ) from None


def checked_text(text: str, where: str) -> str:
    """``text`` from the command line, refused where it held bytes that are not UTF-8 (Python passes them on as
    lone surrogates, which no tokenizer takes), without a leading byte-order mark.

    Raises:
        InferenceError: naming ``where`` and the first such byte.
    """
    bad = next((i for i, char in enumerate(text) if 0xDC80 <= ord(char) <= 0xDCFF), None)
    if bad is not None:
        byte = ord(text[bad]) - 0xDC00
        raise InferenceError(f"{where} is not UTF-8 text (character {bad}: byte {byte:#04x}); zoo reads text as UTF-8")
    return text.removeprefix("\ufeff")


def main_of(command: str, run: Callable[[list[str]], None]) -> Callable[[list[str]], int]:
    """``main(argv) -> exit status`` for ``python -m zoo <command>``: 0, or 2 after one line
    ``zoo <command>: error: ...`` on stderr (:func:`zoo.cli.errors.print_error`); a ``ValueError`` that no check
    raised is a bug and keeps its traceback."""

    def main(argv: list[str]) -> int:
        try:
            run(argv)
        except (RuntimeError, MemoryError) as error:  # torch.OutOfMemoryError is a RuntimeError
            if not _is_out_of_memory(error):
                raise
            print_error(f"zoo {command}", InferenceError(_out_of_memory(error)))
            return 2
        except (InferenceError, ValueError) as error:  # ValueError: a setting refused by the decoder
            if not isinstance(error, InferenceError) and not raised_on_purpose(error):
                raise  # a bug, not a check: its traceback says where
            print_error(f"zoo {command}", error)
            return 2
        except SystemExit as done:  # --help
            return int(done.code or 0)
        return 0

    main.__doc__ = f"Entry point of ``python -m zoo {command} ARGS`` (usable in-process); returns the exit status."
    return main


def warn_of_unseen_characters(command: str, tokenizer, text: str, what: str) -> None:
    """Say on stderr which characters of ``text`` (``what``: "the prompt", "the input") ``tokenizer`` never saw
    in training: each is ``<unk>``, which the model reads as one unknown token and which decodes to nothing."""
    from zoo.data.tokenizer import UNK_ID

    unseen = [char for char in dict.fromkeys(text) if UNK_ID in tokenizer.encode(char).ids]
    if unseen:
        shown = " ".join(unseen[:20]) + (" ..." if len(unseen) > 20 else "")
        print(
            f"zoo {command}: warning: {what} has {len(unseen)} character{'s' * (len(unseen) > 1)} the tokenizer "
            f"never saw in training ({shown}): {'each' if len(unseen) > 1 else 'it'} is <unk>, which decodes to "
            "nothing",
            file=sys.stderr,
        )
