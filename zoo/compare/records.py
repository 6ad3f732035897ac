"""Runs as ``zoo compare`` sees them, and loading them from local run records (``runs/<name>/``, written by
:class:`zoo.runs.record.RunRecord`), with no network."""

from __future__ import annotations

import glob
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from zoo.compare.arguments import CompareError
from zoo.knobs import not_applying
from zoo.runs.identity import with_added_fields
from zoo.runs.record import flatten, of_fit

# How a run that did not finish ended (or that it still runs): the run record's (``killed`` by a signal, by
# ``zoo sweep``) and W&B's (``crashed``, ``killed``).
UNFINISHED_STATUSES = ("running", "failed", "interrupted", "killed", "crashed")

# What a run ran on and with, beside its knobs (its record's, zoo.runs.devices.run_devices, and matmul_precision,
# which is no knob: zoo.compare.configurations.BOOKKEEPING): each a name, the flat record fields it reads, and
# whether it can move the metric (and with it a verdict) as well as the speed, or the speed only.
CONDITIONS = (
    ("device", ("devices.names",), True),
    ("precision", ("precision",), True),
    ("matmul precision", ("matmul_precision",), True),
    ("library versions", ("libraries.torch", "libraries.lightning", "libraries.cuda"), True),
    ("threads per process", ("devices.threads",), False),
    ("cores", ("devices.cores",), False),
)


def _text(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def run_conditions(recorded: dict) -> dict[str, str]:
    """A run's :data:`CONDITIONS` from the flat fields of its record (``devices.threads``, ``precision``,
    ``matmul_precision``, ...), each as text; one a run recorded before it was recorded lacks is left out."""
    found = {}
    for name, keys, _ in CONDITIONS:
        values = [_text(recorded[key]) if name != "library versions" else f"{key.rpartition('.')[2]} {recorded[key]}"
                  for key in keys if recorded.get(key) not in (None, "", [])]  # fmt: skip
        if values:
            found[name] = ", ".join(values)
    return found


@dataclass
class Run:
    """One training run, from a local record or from W&B.

    Attributes:
        name: the run's name (its folder's name, or the W&B run name).
        config: the resolved configuration, flat dotted keys (``model.pe``, ``seed_everything``, ...).
        history: metric -> ``[(step, value), ...]`` sorted by step, one value a step (the last one logged, so a
            resumed run that logs a step again counts it once).
        final: metric -> its last logged value.
        best: metric -> its best logged value (lower is better for losses, perplexity, bits per character).
        status: ``finished``, or one of :data:`UNFINISHED_STATUSES`.
        group: the sweep the run belongs to (W&B ``group``), or ``None``.
        job_type: the knobs its sweep varies (W&B ``job_type``), or ``None``.
        wall_time_s: seconds of training and evaluation, or ``None`` if unknown.
        effective_batch: what one optimiser step trained on (``unit``, ``per_step``, ``world_size``, ...;
            :func:`zoo.runs.devices.effective_batch`), or ``None`` for a run recorded before runs recorded it.
        source: where it was read from (a folder, or ``entity/project/run_id``).
        conditions: what it ran on and with beside its knobs (:func:`run_conditions`), for those recorded.
    """

    name: str
    config: dict
    history: dict[str, list[tuple[int, float]]]
    final: dict[str, float]
    best: dict[str, float]
    status: str
    group: str | None = None
    job_type: str | None = None
    wall_time_s: float | None = None
    source: str = ""
    effective_batch: dict | None = None
    conditions: dict = field(default_factory=dict)


def history_from_rows(rows: list[dict], step_key: str = "step") -> dict[str, list[tuple[int, float]]]:
    """Logged rows ``{"step": N, "<metric>": value, ...}`` -> metric -> ``[(step, value), ...]`` by step.

    Args:
        rows: logging calls in the order they were made.
        step_key: the name of the step field.

    Returns:
        One value per metric and step, the last one logged for that step. Rows of a later ``validate`` or
        ``test`` of a checkpoint (:func:`zoo.runs.record.of_fit`) give only metrics that no row of ``fit`` has (the
        test metrics): a re-measured checkpoint is never a point of training's curve.
    """
    by_metric: dict[str, dict[int, float]] = {}
    trained = {key for row in rows if of_fit(row) for key in row}
    for row in rows:
        step, evaluation = row.get(step_key), not of_fit(row)
        for key, value in row.items():
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            if key != step_key and numeric and not (evaluation and key in trained):
                by_metric.setdefault(key, {})[int(step or 0)] = float(value)
    return {metric: sorted(values.items()) for metric, values in by_metric.items()}


def _read_json(file: Path, default):
    """``file``'s JSON, ``default`` where there is no file.

    Raises:
        CompareError: the file is damaged (not JSON).
    """
    if not file.is_file():
        return default
    try:
        return json.loads(file.read_text())
    except ValueError:
        raise CompareError(
            f"{file} is damaged (not JSON); resuming the run rebuilds it (fit --ckpt_path last), or leave the run out"
        ) from None


NOT_APPLYING = "n/a"  # the value of a knob the run's other knobs leave unused (model.pe of an RNN)


def mark_not_applying(flat_config: dict) -> dict:
    """``flat_config`` with the value of each knob that its other knobs leave unused (:func:`zoo.knobs.not_applying`:
    an RNN's ``model.pe``, ``model.rope_theta`` without rope) as :data:`NOT_APPLYING`: it trained nothing, so it is
    no variation."""
    task = str(flat_config.get("model.class_path", "")).rpartition(".")[2]
    knobs = {key.removeprefix("model."): value for key, value in flat_config.items() if key.startswith("model.")}
    unused = {f"model.{name}" for name in not_applying(task, knobs)}
    return {key: NOT_APPLYING if key in unused else value for key, value in flat_config.items()}


def load_run_folder(folder: Path) -> Run:
    """A :class:`Run` from a run folder with ``summary.json`` (and usually ``config.json``, ``metrics.jsonl``).

    Args:
        folder: ``runs/<name>``.

    Returns:
        The run; ``final``/``best`` are the record's own (``summary.json``), ``history`` is ``metrics.jsonl``.
    """
    summary = _read_json(folder / "summary.json", {})
    metrics_file = folder / "metrics.jsonl"
    lines = metrics_file.read_text().splitlines() if metrics_file.is_file() else []
    return Run(
        name=folder.name,
        config=mark_not_applying(with_added_fields(_read_json(folder / "config.json", {}))),
        history=history_from_rows([json.loads(line) for line in lines if line.strip()]),
        final=dict(summary.get("final", {})),
        best={metric: entry["value"] for metric, entry in summary.get("best", {}).items()},
        status=summary.get("status", "no summary.json"),
        group=summary.get("group"),
        job_type=summary.get("job_type"),
        wall_time_s=summary.get("wall_time_s"),
        source=str(folder),
        effective_batch=summary.get("effective_batch"),
        conditions=run_conditions({**flatten(summary), **_read_json(folder / "config.json", {}),
                                   "devices.names": (summary.get("devices") or {}).get("names")}),  # a list
    )


RUN_FILES = ("summary.json", "config.json", "wandb_id")  # a run that failed before training has only wandb_id


def is_run_folder(path: Path) -> bool:
    return any((path / name).is_file() for name in RUN_FILES)


def _group_of(folder: Path) -> str | None:
    return _read_json(folder / "summary.json", {}).get("group")


def _sweep_names(runs_dir: Path) -> list[str]:
    return sorted({group for p in runs_dir.glob("*") if is_run_folder(p) and (group := _group_of(p))})


def resolve_spec(spec: str, runs_dir: Path) -> list[Path]:
    """The run folders that one command-line argument names.

    Args:
        spec: a run folder, a folder of run folders, a glob (``runs/do-*``), or a sweep name (the ``group`` in
            ``summary.json`` of runs under ``runs_dir``).
        runs_dir: where sweep names are looked up.

    Returns:
        Run folders, sorted by name.

    Raises:
        CompareError: if ``spec`` names no run, with the sweeps that ``runs_dir`` holds.
    """
    path = Path(spec)
    if is_run_folder(path):
        return [path]
    if path.is_dir() and (inside := sorted(p for p in path.iterdir() if is_run_folder(p))):
        return inside
    if glob.has_magic(spec):
        matches = sorted(p for p in map(Path, glob.glob(spec)) if is_run_folder(p))
        if matches:
            return matches
        raise CompareError(f"{spec!r} matches no run folder (a folder with summary.json or config.json)")
    state = _read_json(runs_dir / spec / "sweep.json", None)
    members = sorted(
        {p for p in runs_dir.glob("*") if is_run_folder(p) and _group_of(p) == spec}
        | _trial_folders(state, runs_dir, spec)
    )
    if members:
        return members
    if state is not None:
        statuses = Counter(trial.get("status", "unknown") for trial in state.get("trials", {}).values())
        counts = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items())) or "no trial started"
        raise CompareError(
            f"sweep {spec!r} has no run with a record yet ({counts}); the trials' output is in "
            f"{runs_dir / spec / 'logs'}/"
        )
    sweeps = ", ".join(_sweep_names(runs_dir)) or "none"
    raise CompareError(
        f"{spec!r} is not a run folder (no summary.json or config.json), a glob of run folders, or a sweep name in "
        f"{runs_dir}/ (sweeps there: {sweeps})"
    )


def _trial_folders(state: dict | None, runs_dir: Path, sweep: str) -> set[Path]:
    """The run folders of the trials ``sweep.json`` lists, but for those holding another sweep's run: a trial
    killed before its record was written has a folder with no ``summary.json``, hence no group, and is still
    one of this sweep's runs (left out of the statistics, with its reason)."""
    folders = {runs_dir / name for name in (state or {}).get("trials", {})}
    return {p for p in folders if is_run_folder(p) and _group_of(p) in (None, sweep)}


def load_local_runs(specs: list[str], runs_dir: Path) -> list[Run]:
    """Every run that ``specs`` name (see :func:`resolve_spec`), each once.

    Raises:
        CompareError: if a spec names no run.
    """
    folders: dict[Path, None] = {}
    for spec in specs:
        folders.update(dict.fromkeys(p.resolve() for p in resolve_spec(spec, runs_dir)))
    runs = [load_run_folder(folder) for folder in folders]
    loaded = {run.name for run in runs}
    return runs + [run for spec in specs for run in trials_without_record(spec, runs_dir) if run.name not in loaded]


def trials_without_record(sweep: str, runs_dir: Path) -> list[Run]:
    """The trials of sweep ``sweep`` (``runs_dir/<sweep>/sweep.json``) that have no run folder: a trial that
    failed before training leaves none, and a table of the others must say that it is missing. Each is a
    :class:`Run` with no config or metrics and its sweep status (e.g. ``failed before its run record: exit 2,
    log runs/x/logs/t.log``), which the comparison lists among the runs left out."""
    state = _read_json(runs_dir / sweep / "sweep.json", None) if "/" not in sweep and "*" not in sweep else None
    missing = []
    for name, trial in (state or {}).get("trials", {}).items():
        if is_run_folder(runs_dir / name):
            continue
        exit_code = f"exit {trial['exit_code']}, " if trial.get("exit_code") is not None else ""
        status = f"{trial.get('status', 'unknown')} before its run record: {exit_code}log {trial.get('log', '?')}"
        missing.append(Run(name, {}, {}, {}, {}, status, group=sweep, source=str(runs_dir / sweep / "sweep.json")))
    return missing
