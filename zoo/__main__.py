"""``python -m zoo``: the command line (see :mod:`zoo.cli`)."""

import signal
import sys

if __name__ == "__main__":
    try:
        from zoo.cli import main  # seconds of imports (torch, Lightning): a Ctrl-C there is no error of the user's
    except KeyboardInterrupt:
        sys.exit(128 + signal.SIGINT)
    main()
