"""``python -m zoo compare``: runs side by side, seeds aggregated, each variation against a baseline in the
layout of Table 3 of Vaswani et al. 2017, from local run records (no network) or from W&B.

Modules, in the order data flows: :mod:`.records` and :mod:`.wandb_runs` load runs, :mod:`.metrics` picks the
metric, :mod:`.configurations` finds the knobs and the baseline (:mod:`.baseline_choice` says why it), and
:mod:`.run_values` reads each run's value (:mod:`.at_point` at ``--at``); :mod:`.statistics` (every test,
interval, correction and power) and :mod:`.ablation` build the rows (:mod:`.several`: several metrics);
:mod:`.cells`, :mod:`.notes`, :mod:`.verdicts`, :mod:`.caption`, :mod:`.seeds_varied` and :mod:`.devices` word them;
:mod:`.render` and :mod:`.report` (with :mod:`.figures`) print and draw them (:mod:`.terminal`: the console they
print to); :mod:`.arguments` is the command line (its options, their choices and its error: checked, by
:func:`main` here, before the rest loads), :mod:`.command` runs it;
:mod:`.paired` is ``--paired`` and :mod:`.all_pairs` ``--all_pairs`` (each with its tables), :mod:`.plan` is
``--plan``, :mod:`.calibration` and :mod:`.calibration_table` are ``--calibrate``, the A/A check of the tests
themselves.
"""

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


__all__ = ["main"]
