"""``python -m zoo sweep``: W&B sweep files run locally, one process per trial, with no W&B server.

The same files run online under ``wandb sweep`` + ``wandb agent``. See :mod:`zoo.sweep.main` for the command
line, :mod:`zoo.sweep.spec` for the file format and :mod:`zoo.sweep.runner` for how trials run.
"""

from zoo.sweep.main import main

__all__ = ["main"]
