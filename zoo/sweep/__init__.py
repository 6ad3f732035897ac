"""``python -m zoo sweep``: W&B sweep files run locally, one process per trial, with no W&B server.

The same files run online under ``wandb sweep`` + ``wandb agent``.

- ``main``: the command line and the checks before any trial; ``execution``: running the trials and the report
- ``spec``, ``distributions``, ``engine``, ``search``: the file format, its distributions and W&B's search engine
- ``command``: each trial's ``fit`` command; ``validate``: every trial checked as ``fit`` would;
  ``trial_folders``: the trials' run folders are this sweep's
- ``definition_changes``: what may change between two runs of one sweep
- ``state``: ``sweep.json``, the trials' status; ``runner``: the trial processes; ``signals``: stopping them
- ``placement``: which GPU each trial runs on
"""

from zoo.sweep.main import main

__all__ = ["main"]
