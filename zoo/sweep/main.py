"""``python -m zoo sweep FILE [options] [-- EXTRA...]``: run a W&B sweep file with no W&B server.

Everything after ``--`` is added to every trial's command, e.g. ``-- --data.path ../shared/data/sst2``.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from rich.console import Console

from zoo.cli.command_line import flag_values
from zoo.cli.errors import print_error
from zoo.cli.tool_parser import Bounded, OneLineParser, Seed
from zoo.runs.folders import folder_problem
from zoo.runs.lock import FolderInUse, hold, release
from zoo.sweep.command import (
    budget_name,
    check_command_passes_parameters,
    option_key,
    trial_command,
    zoo_arguments,
)
from zoo.sweep.definition_changes import base_config, check_same_sweep, extended, sweep_definition
from zoo.sweep.execution import _dry_run, _run, trial_threads
from zoo.sweep.placement import cpu_reason, trial_gpus
from zoo.sweep.spec import SweepError, Trial, expand, load_sweep
from zoo.sweep.state import SweepState
from zoo.sweep.trial_folders import check_finished_trials, check_trial_folders_are_ours
from zoo.sweep.validate import check_against_cli, check_trials, cli_parser, parse


class _Parser(OneLineParser):
    error_class = SweepError
    config_file = False


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``zoo sweep``; a bad one raises :class:`SweepError` (one line, the nearest option)."""
    parser = _Parser(
        prog="python -m zoo sweep",
        description="Run a W&B sweep file locally, one process per trial; a second run skips finished trials "
        "and retries failed or interrupted ones. Arguments after -- are added to every trial's command.",
        epilog="example: python -m zoo sweep sweeps/do-pe.yaml --parallel 2 -- "
        "--data.path ../shared/data/tinyshakespeare",
    )
    parser.add_argument("file", help="a W&B sweep YAML file (sweeps/*.yaml)")
    parser.add_argument("--parallel", type=Bounded, default=1, help="trials at once (default 1)")
    parser.add_argument("--threads", type=Bounded, default=None, help="threads per trial (default: cores // parallel)")
    parser.add_argument("--count", type=Bounded, help="number of trials (random, bayes; grid: the first N)")
    parser.add_argument("--seed", type=Seed, default=0, help="seed of the random and bayes searches (default 0)")
    parser.add_argument("--runs_dir", default="runs", help="where run folders and the sweep's state go (runs)")
    parser.add_argument("--dry-run", "--dry_run", action="store_true", help="check and list the trials, run nothing")
    return parser


def main(argv: list[str]) -> int:
    """Entry point of ``python -m zoo sweep``.

    Returns:
        0 when every trial finished, 1 when any failed, 2 for a bad sweep file or command line, 130 after
        Ctrl-C, 143 after SIGTERM.
    """
    own, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    own, misplaced = _fit_arguments_apart(own)
    console = Console(highlight=False, soft_wrap=True)
    try:
        options = build_parser().parse_args(own)
        options.argv = list(argv)
        config, command_for, state, trials = _prepare(options, own, misplaced, extra, console)
    except SweepError as error:
        release()
        print_error("zoo sweep", error)
        return 2
    if config.get("early_terminate"):
        console.print(
            f"sweep {config['name']}: early_terminate is not applied by zoo sweep (every trial trains to its budget); "
            "under wandb agent, W&B's server stops the trials it selects"
        )
    if options.dry_run:
        return _dry_run(config, trials, command_for, options, console)
    try:
        return _run(config, trials, command_for, state, options, console)
    finally:
        release(state.folder)


def _prepare(options, own: list[str], misplaced: list[str], extra: list[str], console: Console) -> tuple:
    """Everything checked before any trial starts: the command line, the runs folder, the sweep file, every
    planned trial's command and folder; the sweep's folder held (not for a dry run).

    Returns:
        The sweep's config, its ``command_for``, its :class:`SweepState` and the planned trials.

    Raises:
        SweepError: the first check that failed, in one line.
    """
    if misplaced:
        again = shlex.join(["python", "-m", "zoo", "sweep", *own, "--", *misplaced, *extra])
        raise SweepError(
            f"{' '.join(misplaced)}: arguments for fit go after --, which adds them to every trial's command: "
            f"{again}"
        )
    problem = folder_problem(Path(options.runs_dir))
    if problem:
        raise SweepError(f"--runs_dir={options.runs_dir!r}: no run folder can be made there ({problem})")
    config = load_sweep(options.file)
    command_for = _checked_command(config, extra, options)
    _name_by_budget(config, extra, command_for, console)
    if not options.dry_run and (Path(options.runs_dir) / config["name"]).is_dir():
        _hold(Path(options.runs_dir) / config["name"])  # before its state is read
    state = SweepState(Path(options.runs_dir), config["name"])
    recorded, definition = state.data.get("definition"), sweep_definition(config, command_for)
    check_same_sweep(recorded, definition, config["name"], state.file)
    options.definition = extended(recorded, definition)
    trials = _planned_trials(config, options, state)
    check_trials(trials, command_for)
    check_trial_folders_are_ours(trials, Path(options.runs_dir), config["name"])
    check_finished_trials(trials, command_for, Path(options.runs_dir))
    options.gpus, options.cpu_reason = _trial_gpus(config, command_for)
    if not options.dry_run:
        state.folder.mkdir(parents=True, exist_ok=True)
        _hold(state.folder)  # a sweep started at the same moment, before either had a folder
    return config, command_for, state, trials


def _name_by_budget(config: dict, extra: list[str], command_for, console: Console) -> None:
    """A training budget after ``--`` makes a sweep of its own (``eo-norm-300steps``): rename ``config``."""
    named = budget_name(config["name"], extra, base_config(command_for))
    if named != config["name"]:
        console.print(
            f"sweep {named}: the training budget after -- makes it a sweep of its own, beside {config['name']} "
            f"(the sweep at its config's budget: leave the budget out)"
        )
        config["name"] = named


def _hold(folder: Path) -> None:
    """Lock the sweep's folder for this process: one ``zoo sweep`` at a time runs a sweep (two would run the
    same trials in the same run folders)."""
    try:
        hold(folder)
    except FolderInUse:
        raise SweepError(
            f"sweep {folder.name!r} is being run by another `python -m zoo sweep` (its folder {folder} is in "
            f"use); wait for it to end: its progress is in {folder / 'sweep.json'}"
        ) from None


# What the runner sets for each trial, and why a sweep cannot vary it.
PER_TRIAL = {
    "run_name": "its run folder is named after its parameters",
    "runs_dir": "give `zoo sweep --runs_dir DIR` for another folder of runs",
    "ckpt_path": "a trial continues from its own last.ckpt",
}


def _checked_command(config: dict, extra: list[str], options) -> callable:
    """The trial command builder, after checking options, extra arguments and every parameter against the CLI."""
    for flag, value in (("--parallel", options.parallel), ("--count", options.count), ("--threads", options.threads)):
        if value is not None and value < 1:
            raise SweepError(f"{flag}={value} is not valid; it must be an integer >= 1")
    trial_threads(options.threads, options.parallel)  # an OMP_NUM_THREADS it would pass on, before anything runs
    for key in config["parameters"]:
        if key in PER_TRIAL:
            raise SweepError(f"parameters.{key} is not valid: the sweep sets {key} for each trial ({PER_TRIAL[key]})")
    swept = set(config["parameters"]) | set(PER_TRIAL)
    for argument in extra:
        key = option_key(argument)
        if key in swept:
            raise SweepError(f"extra argument {argument!r} sets {key}, which the sweep sets for each trial")

    def command_for(params: dict) -> list[str]:
        return trial_command(config, params, extra)

    _check_config_files(zoo_arguments(command_for({})), options.file)
    check_command_passes_parameters(config, tuple(PER_TRIAL))
    check_against_cli(config, command_for)
    return command_for


def _trial_gpus(config: dict, command_for) -> tuple[list[str], str | None]:
    """The GPUs the trials go on (:func:`zoo.sweep.placement.trial_gpus`), and why none where the command did not
    choose the CPU (:func:`zoo.sweep.placement.cpu_reason`); a sweep that varies ``trainer.devices`` cannot
    place its trials on one GPU each.

    Raises:
        SweepError: for a ``trainer.devices`` of more than one device, or a varied one, where there are GPUs.
    """
    namespace = parse(cli_parser(), zoo_arguments(command_for({})))
    gpus = trial_gpus(namespace)
    if gpus and "trainer.devices" in config["parameters"]:
        raise SweepError(
            "parameters.trainer.devices is not valid in a sweep on GPUs: each trial runs on one GPU of its own "
            "(CUDA_VISIBLE_DEVICES)"
        )
    return gpus, cpu_reason(namespace, gpus)


FIT_OPTIONS = ("config", "seed_everything")  # fit's own options without a dot, which a sweep has not


def _fit_arguments_apart(own: list[str]) -> tuple[list[str], list[str]]:
    """The arguments before ``--`` without those for ``fit`` (a dotted option, ``--data.path X``, and its value),
    and those, which the caller refuses with a line that says to put them after ``--``."""
    kept, misplaced = [], []
    for argument in own:
        key = option_key(argument)
        if key and ("." in key or key in FIT_OPTIONS):
            misplaced.append(argument)
        elif misplaced and "=" not in misplaced[-1] and option_key(misplaced[-1]) and not argument.startswith("-"):
            misplaced.append(argument)  # the value of --data.path X
        else:
            kept.append(argument)
    return kept, misplaced


def _check_config_files(arguments: list[str], sweep_file: str) -> None:
    """Refuse a relative ``--config`` of the sweep's command that is not here but is in the repository the
    sweep file belongs to (the shipped sweeps name configs relative to its root): the sweep was started from
    another folder."""
    for path in flag_values(arguments, "--config"):
        if Path(path).is_absolute() or Path(path).exists():
            continue
        roots = [Path(__file__).resolve().parents[2], Path(sweep_file).resolve().parent.parent]
        root = next((root for root in roots if (root / path).is_file()), None)
        if root is not None:
            raise SweepError(
                f"the sweep's command reads --config {path}, relative to the repository root {root}, but this "
                f"folder is {Path.cwd()}: run the sweep from {root} (cd {shlex.quote(str(root))})"
            )


def _planned_trials(config: dict, options, state: SweepState) -> list[Trial]:
    """The trials known before running: all of a grid or random search; for bayes, those already proposed."""
    if config["method"] != "bayes":
        names = {**config, "parameters": options.definition["parameters"]}  # the recorded grid names the trials
        return expand(config, options.count, options.seed, names)
    count = options.count or config.get("run_cap")
    if not count:
        raise SweepError("method=bayes needs --count N (how many trials to run) or run_cap in the file")
    known = [Trial(name, entry["params"], entry.get("job_type") or "") for name, entry in state.trials.items()]
    return known[:count]
