"""What the commands on a trained model share: an argument parser that fails in one line, the checkpoint
and device arguments, and an entry point that turns errors into exit status 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import torch

from zoo.errors import print_error, raised_on_purpose
from zoo.inference.checkpoint import InferenceError


class OneLineParser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, and no sys.exit inside an in-process call
        raise InferenceError(message)


def parser(command: str, description: str) -> argparse.ArgumentParser:
    """A parser for ``python -m zoo <command>`` with ``--ckpt_path`` and ``--device``."""
    p = OneLineParser(prog=f"python -m zoo {command}", description=description)
    p.add_argument("--ckpt_path", required=True, help="a checkpoint written by `python -m zoo fit`")
    default_device = "cuda" if torch.cuda.is_available() else "cpu"
    p.add_argument("--device", default=default_device, help=f"where the model runs (default: {default_device})")
    return p


def positive(name: str, value: float | None, optional: bool = False) -> None:
    """Raise :class:`InferenceError` unless ``value`` is positive (or ``None`` when ``optional``)."""
    if (value is None and not optional) or (value is not None and value <= 0):
        raise InferenceError(f"--{name}={value} is not valid; it must be positive")


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
    ``zoo <command>: error: ...`` on stderr (:func:`zoo.errors.print_error`); a ``ValueError`` that no check
    raised is a bug and keeps its traceback."""

    def main(argv: list[str]) -> int:
        try:
            run(argv)
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
