"""``python -m zoo compare``'s entry point: the arguments are checked (:mod:`.arguments`) before the modules that
load numpy, scipy and Lightning are imported, so an argument error appears in a fraction of a second, not seconds."""

from __future__ import annotations

from zoo.cli.errors import print_error
from zoo.compare.arguments import parse
from zoo.compare.errors import CompareError


def main(argv: list[str]) -> int:
    """Entry point of ``python -m zoo compare ARGS`` (usable in-process).

    Args:
        argv: the arguments after ``compare``.

    Returns:
        The exit status: 0, or 2 after one line ``zoo compare: error: ...`` on stderr.
    """
    try:
        parse(argv)  # parsed again by the command: cheap, and it keeps the command whole for in-process callers
    except CompareError as error:
        print_error("zoo compare", error)
        return 2
    except SystemExit as done:  # --help
        return int(done.code or 0)
    from zoo.compare.command import main as compare

    return compare(argv)
