"""The command line of ``zoo compare``: its options and their choices, its one error and the checks that need no
run, in a module that imports neither numpy, scipy nor Lightning, so that a mistyped option is told in a fraction
of a second (:func:`zoo.compare.main` checks the arguments here before :mod:`.command` loads)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from zoo.cli.errors import print_error
from zoo.cli.tool_parser import Bounded, OneLineParser

INTERVALS = ("welch", "bootstrap")  # --ci: Welch's t interval, or a percentile bootstrap over seeds
CORRECTIONS = ("holm", "bonferroni", "none")  # --correction: how one table's p-values are adjusted together
FORMATS = ("table", "markdown", "csv", "json")  # --format
TEXT = ("table", "markdown")  # formats that text may follow (--plan); the others are data, and it goes to stderr
SPLITS = 2000  # --calibrate: splits of each kind drawn when there are more
DEFAULT_REPORT = ""  # --report with no name: :func:`zoo.compare.command.default_report`


class CompareError(ValueError):
    """Bad input to ``zoo compare``; its message is one line naming the value and what is valid."""


class _Parser(OneLineParser):
    error_class = CompareError


def parser() -> argparse.ArgumentParser:
    """The arguments of ``zoo compare``."""
    p = _Parser(
        prog="python -m zoo compare",
        description="Compare runs: one row per configuration (seeds aggregated), each variation against a "
        "baseline with Welch's t-test, as in Table 3 of Vaswani et al. 2017.",
    )
    p.add_argument("runs", nargs="*", help="run folders, folders of runs, globs (quote them), or sweep names")
    p.add_argument("--wandb", metavar="ENTITY/PROJECT[/GROUP]", help="also read these runs from W&B (online)")
    p.add_argument("--runs_dir", default="runs", help="where sweep names are looked up (default: runs)")
    p.add_argument("--metric",
                   help="the metric to compare (default: the task's: val_bleu, val_acc, val_loss), or several, "
                   "comma-separated (val_loss,val_bleu): one table and verdict each")  # fmt: skip
    p.add_argument("--baseline", metavar="KEY=VALUE[,KEY=VALUE]", help="the baseline configuration, e.g. pe=rope")
    p.add_argument("--value", choices=("best", "final"),
                   help="which value of each run to test (default: best; with --at: final, at the point)")  # fmt: skip
    p.add_argument("--at", metavar="step=N|tokens=N|wall=SECONDS",
                   help="compare each run at its last evaluation at or before this point of its curve")  # fmt: skip
    p.add_argument("--alpha", type=float, default=0.05,
                   help="p-value threshold of the t-test (default 0.05); intervals are 1 - alpha")  # fmt: skip
    p.add_argument("--ci", choices=INTERVALS, default="welch",
                   help="intervals of Δ: Welch's t (default) or a percentile bootstrap over seeds")  # fmt: skip
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="adjust the p-values of a table's comparisons together (default holm)")  # fmt: skip
    p.add_argument("--plan", action="store_true",
                   help="also print the seeds to add to a sweep to resolve its rows within noise")  # fmt: skip
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--wide", action="store_true",
                   help="the terminal table with every column (markdown, csv, json and --report have them all)")
    p.add_argument("--report", metavar="FILE.html", nargs="?", const=DEFAULT_REPORT,
                   help="also write one self-contained HTML report: to FILE.html, or with no name to "
                   "report-<metric>.html in the runs' sweep folder (runs/<sweep>/), else beside the runs")  # fmt: skip
    p.add_argument("--paired", action="store_true", help="also the paired t-test over common seeds")
    p.add_argument("--all_pairs", metavar="KNOB",
                   help="also every pair of one knob's values (3 or more, the other knobs at the baseline's), "
                   "Tukey's HSD, and which values cannot be told from the best; 'configurations': every pair of the "
                   "table's rows, whatever knobs they differ in")  # fmt: skip
    p.add_argument("--include_unfinished", action="store_true", help="count running/failed runs in the statistics")
    _add_calibration_options(p)
    return p


def _add_calibration_options(p: argparse.ArgumentParser) -> None:
    """``--calibrate`` and the options it takes."""
    p.add_argument("--calibrate", action="store_true",
                   help="A/A calibration: split the runs of one configuration (12 seeds or more) into groups of 3 "
                   "and count the splits called beyond noise (docs/known-effects.md)")  # fmt: skip
    p.add_argument("--splits", type=Bounded, default=SPLITS,
                   help=f"with --calibrate: splits of each kind drawn (default {SPLITS}; all where fewer)")  # fmt: skip
    p.add_argument("--simulate", type=Bounded, metavar="TABLES",
                   help="with --calibrate and no runs: calibrate on this many simulated tables of normal values "
                   "(12 seeds each) instead")  # fmt: skip


def parse(argv: list[str]) -> argparse.Namespace:
    """The arguments of ``zoo compare`` (``argv``: those after ``compare``), checked as far as no run is needed.

    Raises:
        CompareError: an unknown or mistyped option, a bad value, or no runs named; one line.
        SystemExit: after ``--help``.
    """
    args = parser().parse_args(argv)
    if args.simulate is not None and not args.calibrate:
        raise CompareError("--simulate is an option of --calibrate: python -m zoo compare --calibrate --simulate 10000")
    if not args.runs and not args.wandb and args.simulate is None:
        raise CompareError("name the runs to compare: run folders, globs, a sweep name, or --wandb ENTITY/PROJECT")
    if not 0 < args.alpha < 1:
        raise CompareError(f"--alpha {args.alpha:g} is not valid; it must be in (0, 1), e.g. 0.05")
    if args.baseline is not None:
        baseline_pairs(args.baseline)
    if args.paired and args.format == "csv":
        raise CompareError("--paired is not written as CSV (one table a file); use --format json, markdown or table")
    return args


def baseline_pairs(text: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs of ``--baseline KEY=VALUE[,KEY=VALUE]``, stripped.

    Raises:
        CompareError: for a pair without ``=`` or without a key.
    """
    pairs = []
    for pair in text.split(","):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CompareError(f"--baseline {text!r}: {pair!r} is not KEY=VALUE (e.g. --baseline pe=rope)")
        pairs.append((key.strip(), value.strip()))
    return pairs


def exit_status(run: Callable[[list[str]], object], argv: list[str]) -> int:
    """Run ``run(argv)`` as a command: 0, or 2 after one line ``zoo compare: error: ...`` on stderr; ``--help``'s
    own status."""
    try:
        run(argv)
    except CompareError as error:
        print_error("zoo compare", error)
        return 2
    except SystemExit as done:  # --help
        return int(done.code or 0)
    return 0

