"""``python -m zoo``: the command line (see :mod:`zoo.cli`)."""

import signal
import sys

if __name__ == "__main__":
    try:
        from zoo.cli import main  # seconds of imports (torch, Lightning): a Ctrl-C there is no error of the user's
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
