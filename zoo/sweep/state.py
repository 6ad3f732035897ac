"""The state of a sweep on disk: ``<runs_dir>/<sweep name>/sweep.json`` (each trial's parameters, status, exit
code, log and wall time), ``logs/<trial>.log`` (each trial's output) and ``attempts/`` (run folders of failed
attempts that left no checkpoint to resume from).

Whether a trial is done is decided by its run folder, ``<runs_dir>/<trial>/summary.json`` with ``status:
finished``, which ``fit`` writes at its end; ``sweep.json`` is the sweep's own record of what happened.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from zoo.runs.folders import checkpoint_files


def run_summary(run_dir: Path) -> dict | None:
    """A run folder's ``summary.json``, or ``None`` if it has none (yet) or it cannot be read."""
    try:
        return json.loads((run_dir / "summary.json").read_text())
    except (OSError, ValueError):
        return None


def is_finished(run_dir: Path) -> bool:
    """Whether the run in ``run_dir`` trained to its end (its record says ``status: finished``)."""
    summary = run_summary(run_dir)
    return summary is not None and summary.get("status") == "finished"


def metric_of(summary: dict | None, metric: str | None) -> dict | None:
    """The sweep metric of a run: its best value and step where recorded, else its last value.

    Returns:
        ``{"value": v, "step": s, "kind": "best"|"final"}``, or ``None`` if the run never logged it.
    """
    if not summary or not metric:
        return None
    if metric in summary.get("best", {}):
        return {**summary["best"][metric], "kind": "best"}
    if metric in summary.get("final", {}):
        return {"value": summary["final"][metric], "step": None, "kind": "final"}
    return None


def close_record(run_dir: Path, exit_code: int) -> None:
    """Close the record of a trial whose process ended while its ``summary.json`` still says ``running``:
    a process killed with SIGKILL, or by the kernel for memory, has no chance to write its end. The status
    becomes ``killed`` (ended by a signal) or ``failed``, with the exit code (negative: the signal's number)
    and the checkpoints its folder holds, so that ``compare`` and the next sweep see what happened.
    """
    summary = run_summary(run_dir)
    if summary is None or summary.get("status") != "running":
        return
    status = "killed" if exit_code < 0 else "failed"
    summary.update(status=status, exit_code=exit_code, checkpoints=checkpoint_files(run_dir))
    temporary = run_dir / "summary.json.tmp"
    temporary.write_text(json.dumps(summary, indent=2, sort_keys=True))
    os.replace(temporary, run_dir / "summary.json")


def _shape_problem(data: object) -> str | None:
    """What is wrong with the shape of a loaded ``sweep.json``, or ``None``."""
    if not isinstance(data, dict) or not isinstance(data.get("trials"), dict):
        return "it holds no 'trials' mapping"
    if not all(isinstance(entry, dict) for entry in data["trials"].values()):
        return "a trial's entry is not a mapping"
    definition = data.get("definition")
    if definition is None:
        return None
    if not isinstance(definition, dict):
        return "its 'definition' is not a mapping"
    for part in ("parameters", "base"):
        if not isinstance(definition.get(part, {}), dict):
            return f"its 'definition.{part}' is not a mapping"
    return None


def _read_state(file: Path) -> dict:
    """A sweep's ``sweep.json``.

    Raises:
        SweepError: it cannot be read or is not a sweep's state (one line: what to do).
    """
    from zoo.sweep.spec import SweepError

    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError) as error:
        problem = f"{type(error).__name__}: {error}"
    else:
        problem = _shape_problem(data)
        if problem is None:
            return data
    raise SweepError(
        f"{file} is not a sweep's state ({problem}); the run folders beside it are intact: move the file aside "
        f"to start the sweep's record anew (finished trials are found by their run folders), or pass another "
        f"--runs_dir"
    )


class SweepState:
    """``<runs_dir>/<name>/sweep.json``, rewritten whole (atomically) after every change.

    Args:
        runs_dir: where the trials' run folders go.
        name: the sweep's name.
    """

    def __init__(self, runs_dir: Path, name: str) -> None:
        self.folder = Path(runs_dir) / name
        self.file = self.folder / "sweep.json"
        self.data = _read_state(self.file) if self.file.exists() else {"name": name, "trials": {}}

    @property
    def trials(self) -> dict:
        return self.data["trials"]

    def log_path(self, trial_name: str) -> Path:
        return self.folder / "logs" / f"{trial_name}.log"

    def describe(self, **fields) -> None:
        """Set sweep-level fields (file, method, metric, command)."""
        self.data.update(fields)
        self.save()

    def update(self, trial_name: str, **fields) -> None:
        """Set fields of one trial's entry and save."""
        self.trials.setdefault(trial_name, {}).update(fields)
        self.save()

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.file.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(self.data, indent=2, sort_keys=True))
        os.replace(temporary, self.file)  # a Ctrl-C never leaves half a file

    def set_aside(self, run_dir: Path) -> Path:
        """Move the folder of a failed attempt with no checkpoint to ``attempts/``, so that the retry gets the
        trial's own run name (not ``<name>-2``) and the failed attempt is still there to read.

        Returns:
            Where the folder went.
        """
        target = self.folder / "attempts" / f"{run_dir.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(run_dir), str(target))
        return target
