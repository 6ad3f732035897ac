"""The command line of ``python -m zoo compare``."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from zoo.compare.all_pairs import all_pairs
from zoo.compare.arguments import DEFAULT_REPORT, TEXT, CompareError, exit_status, parse
from zoo.compare.at_point import parse_point
from zoo.compare.calibration import calibrate, seed_values, simulate
from zoo.compare.calibration_table import render as render_calibration
from zoo.compare.caption import compare_command
from zoo.compare.paired import paired_json, paired_rows, write_paired
from zoo.compare.plan import plan_lines
from zoo.compare.records import load_local_runs
from zoo.compare.render import render
from zoo.compare.several import compare_metrics, parse_metrics
from zoo.compare.wandb_runs import load_wandb_runs
from zoo.runs.folders import folder_problem
from zoo.runs.output_files import replaceable_problem, replaced


def run(argv: list[str]) -> None:
    """Parse ``argv``, load the runs, print the comparison and write the report.

    Raises:
        CompareError: for any bad input, with a one-line message.
    """
    args = parse(argv)
    if args.calibrate:
        return _calibrate(args, argv)
    if args.report:
        _check_report_path(Path(args.report))
    runs, at, which = _runs(args)
    settings = dict(baseline=args.baseline, which=which, at=at, alpha=args.alpha, correction=args.correction,
                    include_unfinished=args.include_unfinished, interval=args.ci)  # fmt: skip
    comparisons = compare_metrics(runs, parse_metrics(args.metric), **settings)
    for comparison in comparisons if args.all_pairs else []:  # refused before anything is printed
        comparison.all_pairs = all_pairs(comparison, args.all_pairs)
    command = compare_command(argv)
    if args.report == DEFAULT_REPORT:
        args.report = str(default_report(runs, comparisons, Path(args.runs_dir)))
        _check_report_path(Path(args.report))
    results = [paired_rows(c) for c in comparisons] if args.paired else None  # refused before anything is printed
    if results is not None and args.format == "json":
        text = io.StringIO()
        render(comparisons, args.format, text, command)
        sys.stdout.write(paired_json(comparisons, results, text.getvalue()))
    else:
        render(comparisons, args.format, sys.stdout, command, args.wide)
        for comparison, rows in zip(comparisons, results or [], strict=False):
            write_paired(comparison, rows, args.format, sys.stdout, args.wide)
    plans = [plan_lines(comparison, Path(args.runs_dir)) for comparison in comparisons] if args.plan else []
    for lines in plans:
        print("\n".join(lines), file=sys.stdout if args.format in TEXT else sys.stderr)
    if args.report:
        from zoo.compare.report import write_report  # plotly is imported only when a report is asked for

        earlier = replaced(Path(args.report))
        write_report(comparisons, Path(args.report), command, results, plans)
        print(f"report: {args.report}{earlier}", file=sys.stderr)


def _runs(args: argparse.Namespace) -> tuple[list, object, str]:
    """The runs named, the ``--at`` point (``None`` without it) and which value of each run is compared."""
    runs = load_local_runs(args.runs, Path(args.runs_dir)) if args.runs else []
    runs += load_wandb_runs(args.wandb) if args.wandb else []
    at = parse_point(args.at) if args.at else None
    return runs, at, args.value or ("final" if at else "best")


def _calibrate(args: argparse.Namespace, argv: list[str]) -> None:
    """``--calibrate``: the A/A table of :mod:`.calibration_table` instead of the comparison."""
    options = ("baseline", "plan", "report", "paired", "all_pairs")
    given = [f"--{name}" for name in options if getattr(args, name) not in (None, False)]  # --report alone: ""
    if given or args.splits < 1:
        what = f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply" if given else (
            f"--splits={args.splits} is not valid; it must be 1 or more")  # fmt: skip
        raise CompareError(f"--calibrate: {what} (it splits one configuration's seeds: see docs/known-effects.md)")
    if "," in (args.metric or ""):
        raise CompareError(f"--calibrate takes one metric; --metric {args.metric!r} names several")
    if args.simulate is not None:
        return _simulate(args, argv)
    runs, at, which = _runs(args)
    metric, values, _ = seed_values(runs, args.metric, which=which, at=at, alpha=args.alpha,
                                    include_unfinished=args.include_unfinished)  # fmt: skip
    tally = calibrate(values, args.alpha, args.splits)
    source = f"{len(values)} seeds of one configuration, {metric} ({which}); {compare_command(argv)}"
    render_calibration(tally, args.alpha, source, args.format, sys.stdout)


def _simulate(args: argparse.Namespace, argv: list[str]) -> None:
    """``--calibrate --simulate TABLES``: the A/A table of independent simulated tables (:func:`.simulate`)."""
    if args.simulate < 1 or args.runs or args.wandb:
        problem = f"--simulate={args.simulate} is not valid" if args.simulate < 1 else "--simulate takes no runs"
        raise CompareError(f"--calibrate: {problem}; simulate 1 table or more without runs, e.g. --simulate 10000")
    tally = simulate(args.simulate, alpha=args.alpha)
    source = (f"SIMULATED, no training runs: {args.simulate:,} independent tables of 12 standard normal values, a "
              f"baseline and 3 variations of 3 seeds each, no effect; {compare_command(argv)}")  # fmt: skip
    render_calibration(tally, args.alpha, source, args.format, sys.stdout, simulated=True)


def default_report(runs: list, comparisons: list, runs_dir: Path) -> Path:
    """Where ``--report`` with no name writes: ``report-<metric>.html`` (metrics joined by ``+``) in the folder of
    the runs' one sweep (``<folder of the runs>/<sweep>/``, as ``zoo sweep`` makes it), else in the one folder
    that holds the runs, else (runs from W&B) in ``runs_dir``, made if missing. Under ``runs/`` it is in the
    folder that git ignores, never in a repository's tracked tree."""
    name = f"report-{'+'.join(c.metric for c in comparisons)}.html"
    folders = {Path(run.source).parent for run in runs if run.source and Path(run.source).is_dir()}
    if len(folders) == 1 and all(run.source and Path(run.source).is_dir() for run in runs):  # no W&B run
        folder, groups = folders.pop(), {run.group for run in runs}
        sweep = folder / str(next(iter(groups)))
        return (sweep if len(groups) == 1 and None not in groups and sweep.is_dir() else folder) / name
    runs_dir.mkdir(parents=True, exist_ok=True)
    return runs_dir / name


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
    """Entry point of ``python -m zoo compare ARGS`` in-process, with every module loaded
    (:func:`zoo.compare.main` checks the arguments first); the exit status as
    :func:`.arguments.exit_status`."""
    return exit_status(run, argv)
