"""``python -m zoo compare``'s entry point: the arguments are checked (:mod:`.arguments`) before the modules that
load numpy, scipy and Lightning are imported, so an argument error appears in a fraction of a second, not seconds."""

from __future__ import annotations

from zoo.compare.arguments import exit_status, parse


def _checked_then_run(argv: list[str]) -> None:
    parse(argv)  # a bad argument or --help ends here, before the heavy modules load
    from zoo.compare.command import run

    run(argv)  # parses again: cheap, and it keeps the command whole for in-process callers


def main(argv: list[str]) -> int:
    """Entry point of ``python -m zoo compare ARGS`` (usable in-process).

    Args:
        argv: the arguments after ``compare``.

    Returns:
        The exit status: 0, or 2 after one line ``zoo compare: error: ...`` on stderr.
    """
    return exit_status(_checked_then_run, argv)
