"""The command line of ``python -m zoo compare``."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from zoo.compare.ablation import compare
from zoo.compare.errors import CompareError
from zoo.compare.paired import paired_json, paired_markdown, paired_rows
from zoo.compare.records import load_local_runs
from zoo.compare.render import FORMATS, render
from zoo.compare.wandb_runs import load_wandb_runs
from zoo.errors import print_error
from zoo.output_files import replaceable_problem
from zoo.run_folders import folder_problem


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, and no sys.exit inside an in-process call
        raise CompareError(message)


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
    p.add_argument("--metric", help="the metric to compare (default: the task's: val_bleu, val_acc, val_loss)")
    p.add_argument("--baseline", metavar="KEY=VALUE[,KEY=VALUE]", help="the baseline configuration, e.g. pe=rope")
    p.add_argument("--value", choices=("best", "final"), default="best", help="which value of each run to test")
    p.add_argument("--alpha", type=float, default=0.05, help="p-value threshold of the t-test (default 0.05)")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    p.add_argument("--report", metavar="FILE.html", help="also write one self-contained HTML report")
    p.add_argument("--paired", action="store_true", help="also the paired t-test over common seeds")
    p.add_argument("--include_unfinished", action="store_true", help="count running/failed runs in the statistics")
    return p


def run(argv: list[str]) -> None:
    """Parse ``argv``, load the runs, print the comparison and write the report.

    Raises:
        CompareError: for any bad input, with a one-line message.
    """
    args = parser().parse_args(argv)
    if not args.runs and not args.wandb:
        raise CompareError("name the runs to compare: run folders, globs, a sweep name, or --wandb ENTITY/PROJECT")
    if not 0 < args.alpha < 1:
        raise CompareError(f"--alpha={args.alpha} is not valid; it must be in (0, 1), e.g. 0.05")
    if args.paired and args.format == "csv":
        raise CompareError("--paired is not written as CSV (one table a file); use --format json, markdown or table")
    if args.report:
        _check_report_path(Path(args.report))
    runs = load_local_runs(args.runs, Path(args.runs_dir)) if args.runs else []
    runs += load_wandb_runs(args.wandb) if args.wandb else []
    comparison = compare(runs, args.metric, args.baseline, args.value, args.alpha, args.include_unfinished)
    results = paired_rows(comparison) if args.paired else None  # refused before anything is printed
    if results is not None and args.format == "json":
        text = io.StringIO()
        render(comparison, args.format, text)
        sys.stdout.write(paired_json(comparison, results, text.getvalue()))
    else:
        render(comparison, args.format, sys.stdout)
        sys.stdout.write(paired_markdown(comparison, results) if results is not None else "")
    if args.report:
        from zoo.compare.report import write_report  # plotly is imported only when a report is asked for

        write_report(comparison, Path(args.report))
        print(f"report: {args.report}", file=sys.stderr)


def _check_report_path(report: Path) -> None:
    """Refuse a ``--report`` path that cannot be written, before any run is read: a name that is not ``.html``,
    a folder that does not exist (as ``attention --out``), a folder, or a file that is not a report of its own."""
    problem = None
    if report.suffix.lower() not in (".html", ".htm"):
        problem = "it is not an .html name, and the report is HTML"
    elif not report.parent.exists():
        problem = f"the folder {str(report.parent)!r} does not exist"
    problem = problem or folder_problem(report.parent)
    if not problem and report.is_dir():
        problem = f"{report} is a folder"
    problem = problem or replaceable_problem(report, "compare")  # a report of its own it may replace
    if problem:
        raise CompareError(f"--report={str(report)!r} cannot be written ({problem}); name an .html file to write")


def main(argv: list[str]) -> int:
    """Entry point of ``python -m zoo compare ARGS`` (usable in-process).

    Args:
        argv: the arguments after ``compare``.

    Returns:
        The exit status: 0, or 2 after one line ``zoo compare: error: ...`` on stderr.
    """
    try:
        run(argv)
    except CompareError as error:
        print_error("zoo compare", error)
        return 2
    except SystemExit as done:  # --help
        return int(done.code or 0)
    return 0
