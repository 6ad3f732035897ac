"""Running a sweep's trials: the threads of each, the dry run, starting and following the trials, and what to run
next."""

from __future__ import annotations

import os
import shlex
import signal
from pathlib import Path

from rich.console import Console

from zoo.sweep.placement import Placement
from zoo.sweep.runner import Runner, names_not_passed, trial_command_line
from zoo.sweep.search import BayesSource, list_source
from zoo.sweep.signals import Terminated
from zoo.sweep.spec import SweepError, Trial
from zoo.sweep.state import SweepState, is_finished, metric_of, run_summary


def _dry_run(config: dict, trials: list[Trial], command_for, options, console: Console) -> int:
    runs_dir = Path(options.runs_dir)
    count = f"{len(trials)} trial{'s' * (len(trials) != 1)}"
    console.print(f"sweep {config['name']} ({config['method']}): {count}, metric {_metric(config)}")
    placement = Placement(options.gpus, options.parallel, options.cpu_reason)
    threads, source = trial_threads(options.threads, options.parallel)
    console.print(f"trials run {placement.describe()}, {options.parallel} at once, {_threads(threads)} each ({source})")
    _say_crowded(console, placement, options.parallel, threads, source)
    for number, trial in enumerate(trials, 1):
        done = "to run"
        if is_finished(runs_dir / trial.name):
            done = "finished: skipped"
        elif (runs_dir / trial.name / "checkpoints" / "last.ckpt").is_file():
            done = "to continue from its last.ckpt"
        console.print(f"{number:>4} {trial.name}  ({done})")
        console.print(f"       {shlex.join(trial_command_line(command_for, trial, runs_dir))}")
    if config["method"] == "bayes":
        console.print(f"bayes proposes each further trial from the results so far, up to --count {options.count}")
    return 0


def trial_threads(threads: int | None, parallel: int) -> tuple[int, str]:
    """The threads of each trial and where that number comes from: ``--threads``; else an exported
    ``OMP_NUM_THREADS`` (what a ``zoo fit`` in that shell would use); else the cores shared among the
    ``parallel`` trials.

    Raises:
        SweepError: for an ``OMP_NUM_THREADS`` that is not an integer >= 1.
    """
    if threads is not None:
        return threads, "--threads"
    exported = os.environ.get("OMP_NUM_THREADS", "").strip()
    if exported:
        if not exported.isdigit() or int(exported) < 1:
            raise SweepError(
                f"OMP_NUM_THREADS={exported!r} is not valid; it must be an integer >= 1 (or unset, to share the "
                f"cores among the trials; --threads T sets it)"
            )
        return int(exported), "OMP_NUM_THREADS"
    from zoo.runs.devices import cpu_cores  # torch: not before the sweep's arguments are checked

    cores = cpu_cores()
    return max(1, cores // parallel), f"{cores} core{'s' * (cores != 1)} // --parallel {parallel}"


def crowded_cores(placement: Placement, parallel: int, threads: int, source: str) -> str | None:
    """The line a sweep says before its trials start (and in ``--dry-run``) when its trials on the CPU would
    together run more threads than the machine has cores (``OMP_NUM_THREADS=2`` exported, ``--parallel 2`` on 2
    cores), with the ``--threads`` that fits; ``None`` where they fit, or where the trials run on GPUs."""
    from zoo.runs.devices import cpu_cores

    cores = cpu_cores()
    if placement.gpus or threads * parallel <= cores:
        return None
    fits = f"--threads {cores // parallel}" if parallel <= cores else f"--parallel {cores} --threads 1"
    return (
        f"{parallel} trials at once x {_threads(threads)} each ({source}) = {threads * parallel} threads on "
        f"{cores} core{'s' * (cores != 1)}: they take turns on the cores and each trial runs several times slower; "
        f"{fits} fits"
    )


def _say_crowded(console: Console, placement: Placement, parallel: int, threads: int, source: str) -> None:
    """The lines said before trials start where what the shell exported does not apply as it would to one run:
    threads that crowd the cores (:func:`crowded_cores`), a ``$WANDB_NAME`` (:func:`names_not_passed`)."""
    for line in (crowded_cores(placement, parallel, threads, source), names_not_passed()):
        if line:
            console.print(line, markup=False, highlight=False)


def _threads(count: int) -> str:
    return f"{count} thread{'s' * (count != 1)}"


def _run(config: dict, trials: list[Trial], command_for, state: SweepState, options, console: Console) -> int:
    runs_dir = Path(options.runs_dir)
    state.describe(
        file=str(options.file),
        method=config["method"],
        metric=config.get("metric"),
        definition=options.definition,
        gpus=options.gpus,  # the GPUs its trials were placed on (none: on the CPU)
    )
    threads, source = trial_threads(options.threads, options.parallel)
    runner = Runner(
        state,
        runs_dir,
        command_for,
        _metric_name(config),
        options.parallel,
        threads,
        console,
        options.gpus,
        options.cpu_reason,
    )
    console.print(
        f"sweep {config['name']} ({config['method']}, metric {_metric(config)}): {options.parallel} at once "
        f"{runner.placement.describe()}, {_threads(threads)} each ({source}); state and logs in {state.folder}"
    )
    _say_crowded(console, runner.placement, options.parallel, threads, source)
    _close_stale_entries(state, runs_dir)
    pending = _pending(trials, runs_dir, state, runner, _metric_name(config))
    total = options.count or config.get("run_cap") if config["method"] == "bayes" else len(trials)
    source = list_source(pending, total, len(trials) - len(pending))
    if config["method"] == "bayes":
        source = BayesSource(config, state, source, total, options.seed)
    try:
        runner.run(source)
    except KeyboardInterrupt as stop:
        console.print(f"interrupted: finished runs are kept; continue with: {_again(options)}")
        return 128 + signal.SIGTERM if isinstance(stop, Terminated) else 130
    if getattr(source, "exhausted", None):
        console.print(f"sweep {config['name']}: {source.exhausted}")
    return _report(config, runner.counts, len(trials) - len(pending), options, console)


def _pending(trials: list[Trial], runs_dir: Path, state: SweepState, runner: Runner, metric: str | None) -> list:
    """The trials still to run; a finished one is said and skipped (its entry set finished if it was not)."""
    pending = []
    for trial in trials:
        if is_finished(runs_dir / trial.name):
            value = metric_of(run_summary(runs_dir / trial.name), metric)
            runner.say("", "skip", trial, "finished earlier" + (f": {value['value']:.4g}" if value else ""))
            if trial.name in state.trials and state.trials[trial.name].get("status") != "finished":
                state.update(trial.name, status="finished")  # killed after its record was complete
        else:
            pending.append(trial)
    return pending


def _report(config: dict, counts: dict, earlier: int, options, console: Console) -> int:
    """Say how the trials ended and what to run next; 1 when any failed, else 0."""
    failed = counts["failed"] + counts["killed"] + counts["interrupted"]
    how = [
        f"{counts[k]} {w}" for k, w in (("killed", "killed by a signal"), ("interrupted", "interrupted")) if counts[k]
    ]
    how = f" ({', '.join(how)})" if how else ""
    console.print(
        f"sweep {config['name']}: {counts['finished']} finished now, {earlier} earlier, "
        f"{failed} failed{how}. Compare them: {_compare_command(config, options)}"
    )
    if failed:
        console.print(f"failed trials are retried by running the same command again: {_again(options)}")
    return 1 if failed else 0


def _close_stale_entries(state: SweepState, runs_dir: Path) -> None:
    """Entries that an earlier ``zoo sweep`` left ``running`` (it was killed with its trials) take the status
    their run records ended with (``interrupted``: the trial got SIGTERM with the sweep), so that
    ``sweep.json`` says what happened before this sweep runs them again."""
    for name, entry in state.trials.items():
        summary = run_summary(runs_dir / name)
        ended = (summary or {}).get("status")
        if entry.get("status") == "running" and ended not in (None, "running"):
            state.update(name, status=ended)


def _compare_command(config: dict, options) -> str:
    runs_dir = [] if Path(options.runs_dir) == Path("runs") else ["--runs_dir", options.runs_dir]
    return shlex.join(["python", "-m", "zoo", "compare", config["name"], *runs_dir])


def _metric_name(config: dict) -> str | None:
    return (config.get("metric") or {}).get("name")


def _metric(config: dict) -> str:
    metric = config.get("metric") or {}
    return f"{metric.get('name')} ({metric.get('goal', 'minimize')})" if metric else "none"


def _again(options) -> str:
    return shlex.join(["python", "-m", "zoo", "sweep", *options.argv])
