"""The trials' run folders before a sweep starts: each is this sweep's, and a finished trial's config is the one
planned."""

from __future__ import annotations

import json
from pathlib import Path

from zoo.sweep.spec import SweepError
from zoo.sweep.validate import cli_parser, parse


def check_trial_folders_are_ours(trials, runs_dir: Path, sweep: str) -> None:
    """Refuse a trial whose run folder holds a run of another sweep: trial names are ``<sweep>-<values>``, so
    a sweep named ``rc-rmsnorm`` and sweep ``rc``'s trials of ``model.norm=rmsnorm`` name the same folders, and
    this sweep would take the other's runs as its own (or continue them).

    Raises:
        SweepError: naming the trial, its folder and the sweep its record belongs to.
    """
    from zoo.sweep.state import run_summary

    for trial in trials:
        group = (run_summary(runs_dir / trial.name) or {}).get("group")
        if group not in (None, sweep):
            raise SweepError(
                f"trial {trial.name}'s run folder {runs_dir / trial.name} holds a run of sweep {group!r} (the group "
                f"in its summary.json), not of {sweep!r}; give this sweep another name (name: in its file) or "
                f"pass another --runs_dir"
            )


def check_finished_trials(trials, command_for, runs_dir) -> None:
    """Refuse to skip a finished trial whose recorded configuration is not what the sweep would run now (the
    extra arguments after ``--`` or the config file changed, or the training budget): its result would be
    reported for a configuration it never had, and a run continued to a longer budget is not the run trained
    for it (its learning-rate schedule differs). The sweep's own record makes the same check for the whole
    sweep (:func:`check_same_sweep`); this one covers trials a sweep file does not record.

    Raises:
        SweepError: naming the trial and the fields that differ.
    """
    from zoo.runs.data_seed import settle
    from zoo.runs.identity import BUDGET_FIELDS, differences
    from zoo.runs.record import flatten
    from zoo.sweep.command import zoo_arguments
    from zoo.sweep.state import is_finished

    parser = cli_parser()
    for trial in trials:
        run_dir = runs_dir / trial.name
        if not is_finished(run_dir) or not (run_dir / "config.json").exists():
            continue
        config = parse(parser, zoo_arguments(command_for(trial.params)))
        settle(config, None)  # a data.seed left out is the trial's seed, as a new run of it would train
        command = flatten(config.as_dict())
        recorded = json.loads((run_dir / "config.json").read_text())
        differs = differences(recorded, command) + [
            f"{key}={command.get(key)!r} (the run has {recorded.get(key)!r})"
            for key in BUDGET_FIELDS
            if command.get(key) != recorded.get(key)
        ]
        if differs:
            raise SweepError(
                f"trial {trial.name} finished earlier with another configuration than this sweep would run: "
                f"{', '.join(differs[:4])}; pass another --runs_dir, or remove {run_dir} to run it again"
            )
