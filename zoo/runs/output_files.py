"""Files a command writes where the user says (``compare --report``, ``attention --out``): each carries its
command's mark, and replaces only a file with that mark (an earlier output of the same command), saying so
(:func:`replaced`); any other file at that path is the user's, and is never overwritten."""

from __future__ import annotations

from pathlib import Path

HEAD_BYTES = 1 << 16  # where the mark is: an HTML <head>, a PNG's text chunks before its image data


def mark(command: str) -> str:
    """The mark of ``python -m zoo <command>``'s files: ``zoo <command>`` (an HTML generator, a PNG's Software)."""
    return f"zoo {command}"


def replaceable_problem(path: Path, command: str) -> str | None:
    """Why ``path`` may not be written by ``command``: it is a file that ``command`` did not write; ``None``
    when there is no file or it is one of ``command``'s."""
    if not path.is_file():
        return None
    with path.open("rb") as file:
        head = file.read(HEAD_BYTES)
    if mark(command).encode() in head:
        return None
    return f"{path} exists and was not written by `python -m zoo {command}`; remove it or name another file"


def replaced(path: Path) -> str:
    """`` (replacing the earlier one)`` when ``path`` is a file (checked before writing it), else ``""``: the line
    that names a written output says when it took the place of an earlier output at the same path."""
    return " (replacing the earlier one)" if path.is_file() else ""
