"""``python -m zoo compare``: runs side by side, seeds aggregated, each variation against a baseline in the
layout of Table 3 of Vaswani et al. 2017, from local run records (no network) or from W&B.

Modules, in the order data flows: :mod:`.records` and :mod:`.wandb_runs` load runs, :mod:`.metrics` picks the
metric, :mod:`.configurations` finds the knobs and the baseline, :mod:`.statistics` and :mod:`.ablation` build
the rows, :mod:`.render` and :mod:`.report` print and draw them, :mod:`.command` is the command line;
:mod:`.calibration` and :mod:`.calibration_table` are ``--calibrate``, the A/A check of the tests themselves.
"""

from zoo.compare.command import main

__all__ = ["main"]
