"""Where compare's tables and notes are printed: a rich console as wide as the terminal, whose lines of text wrap
between words on a terminal (never mid-word at the edge) and stay whole in a file or a pipe (one line per note,
for grep and for diffs)."""

from __future__ import annotations

import shutil

from rich.console import Console


def console_for(file, table=None) -> Console:
    """A console writing to ``file`` as wide as the terminal (220 columns where there is none), or as ``table``
    is where it is wider (``--wide``: each cell whole on its line, not folded mid-word at the edge; ``less -S``
    scrolls it)."""
    width = shutil.get_terminal_size((220, 24)).columns
    if table is not None:
        width = max(width, Console(width=100_000).measure(table).maximum)
    return Console(file=file, width=width)


def say(console: Console, line: str) -> None:
    """Print ``line`` as text (no markup, no highlighting), wrapped between words on a terminal."""
    console.print(line, highlight=False, soft_wrap=not console.is_terminal, markup=False)
