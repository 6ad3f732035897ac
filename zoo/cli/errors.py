"""How every ``python -m zoo`` command reports a refused input: one line ``zoo[ <command>]: error: ...`` on
stderr, with the traceback above it when ``ZOO_DEBUG`` is set (where the check was, for a contributor), while
an error that no check raised (a bug) keeps its traceback."""

from __future__ import annotations

import os
import sys
import traceback


def raised_on_purpose(error: BaseException) -> bool:
    """Whether ``error`` comes from a ``raise`` statement (a check, which names what is wrong), not from an
    operation that failed (unpacking, ``int("x")``), where the traceback is the message.

    Example:
        >>> def check():
        ...     raise ValueError("model.lr=-1 is not valid")
        >>> try:
        ...     check()
        ... except ValueError as error:
        ...     raised_on_purpose(error)
        True
        >>> try:
        ...     int("x")
        ... except ValueError as error:
        ...     raised_on_purpose(error)
        False
    """
    frames = traceback.extract_tb(error.__traceback__)
    return not frames or (frames[-1].line or "").lstrip().startswith("raise")


def print_error(prefix: str, error: BaseException) -> None:
    """``<prefix>: error: <error>`` on stderr (``prefix``: ``zoo`` or ``zoo <command>``), after the traceback
    when the environment sets ``ZOO_DEBUG``."""
    if os.environ.get("ZOO_DEBUG"):
        traceback.print_exception(error, file=sys.stderr)
    print(f"{prefix}: error: {error}", file=sys.stderr)
