"""``python -m zoo``: the command line (see :mod:`zoo.cli.main`). Bare, it lists the commands; a command
outside LightningCLI's four (``sweep``, ``compare``, ...) is run without importing :mod:`zoo.cli.lightning_cli`
(Lightning: seconds), so that its arguments are checked first; a missing or broken ``--config`` file and a mistyped
field of the four are told before Lightning loads too (:mod:`zoo.cli.config_files`, :mod:`zoo.cli.unknown_fields`)."""

import signal
import sys


def _entry():
    """The ``main`` to run: of the command's own module for a tool (``sweep``), else :func:`zoo.cli.main.main`."""
    from zoo.cli.command_line import print_commands_and_exit, tool_main, unknown_command

    argv = sys.argv[1:]
    if not argv:
        print_commands_and_exit()
    if unknown_command(argv[0]):
        print(f"zoo: error: {unknown_command(argv[0])}", file=sys.stderr)
        sys.exit(2)
    if tool := tool_main(argv[0]):
        return lambda: sys.exit(tool(argv[1:]))
    if problem := _told_before_imports(argv):
        print(f"zoo: error: {problem}", file=sys.stderr)
        sys.exit(2)
    from zoo.cli.main import main

    return main


def _told_before_imports(argv: list[str]) -> str | None:
    """What is wrong with a run command's files (``--config``, ``--ckpt_path``) or fields that needs no Lightning
    to tell (the same line :mod:`zoo.cli.main` gives after it), or ``None``."""
    from zoo.cli.command_line import TRAINING
    from zoo.cli.config_files import files_problem, missing_model_and_data
    from zoo.cli.unknown_fields import refused_before_imports

    if argv[0] not in TRAINING:
        return None
    if len(argv) == 1:  # the command alone: no model, no data
        return missing_model_and_data(argv[0])
    return files_problem(argv) or refused_before_imports(argv)


if __name__ == "__main__":
    try:
        main = _entry()  # a Ctrl-C during the imports is no error of the user's
    except KeyboardInterrupt:
        sys.exit(128 + signal.SIGINT)
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] == "zoo":
            raise  # a module of zoo's own: a bug, whose traceback says where
        print(
            f"zoo: error: {error.name} is not installed for {sys.executable}, the Python that ran this; zoo's "
            f"dependencies are in its virtual environment: run `source .venv/bin/activate` (or `make install`, "
            f"which makes it), then the same command",
            file=sys.stderr,
        )
        sys.exit(2)
    main()
