"""What the commands on a trained model share: an argument parser that fails in one line, the checkpoint
and device arguments, and an entry point that turns errors into exit status 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import torch

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


def main_of(command: str, run: Callable[[list[str]], None]) -> Callable[[list[str]], int]:
    """``main(argv) -> exit status`` for ``python -m zoo <command>``: 0, or 2 after one line
    ``zoo <command>: error: ...`` on stderr."""

    def main(argv: list[str]) -> int:
        try:
            run(argv)
        except (InferenceError, ValueError) as error:  # ValueError: a setting refused by the decoder
            print(f"zoo {command}: error: {error}", file=sys.stderr)
            return 2
        except SystemExit as done:  # --help
            return int(done.code or 0)
        return 0

    main.__doc__ = f"Entry point of ``python -m zoo {command} ARGS`` (usable in-process); returns the exit status."
    return main
