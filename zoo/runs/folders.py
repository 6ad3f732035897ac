"""Run folders: a run's identity is its whole resolved configuration.

A run folder is ``runs_dir/<name>``; the name says the headline knobs and ends in a short hash of the whole
configuration (``do-tinyshakespeare-learned-layernorm-pre-h4-s1-3f9a2c``), so runs that differ in anything
but the training budget get different names, and ``-2``, ``-3`` only ever mean "the same configuration again".
``--ckpt_path last`` resumes only a run whose recorded configuration equals the command's.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from zoo.runs.identity import canonical_value, differences


class RunFolderError(Exception):
    """No run folder fits the command (``--ckpt_path last`` without a matching run); one line."""


def folder_problem(folder: Path) -> str | None:
    """Why run folders cannot be made in ``folder`` (it, or the nearest part of its path that exists, is a
    file or is not writable), or ``None``; nothing is created."""
    for part in [folder, *folder.absolute().parents]:
        if part.exists():
            if not part.is_dir():
                return f"{part} is a file"
            return None if os.access(part, os.W_OK | os.X_OK) else f"{part} is not writable"
    return None


MADE_RUNS_DIRS: set[Path] = set()  # the runs_dir folders this process created (a user's own is never removed)


def new_run_dir(runs_dir: Path, name: str) -> Path:
    """Create and return ``runs_dir/name``, or ``name-2``, ``name-3``, ... if taken. The folder is created
    atomically, so two runs started at the same moment never share one, and nothing of an earlier run is
    overwritten."""
    if not runs_dir.is_dir():
        MADE_RUNS_DIRS.add(runs_dir.absolute())  # this command's, so a run that never starts takes it away
    runs_dir.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        candidate = runs_dir / (name if k == 1 else f"{name}-{k}")
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            k += 1


def remove_unused_run_dir(run_dir: Path | None) -> None:
    """Remove ``run_dir`` (and ``runs_dir`` if this command created it and it is then empty) when a run failed
    before it started: only a folder that is empty, or holds no more than the W&B id its logger wrote and the
    files of the W&B run it began (``wandb/``: no record, no checkpoint), can be such a run's."""
    if run_dir is None:
        return
    id_file, wandb_files = run_dir / "wandb_id", run_dir / "wandb"
    if id_file.exists() and set(run_dir.iterdir()) <= {id_file, wandb_files}:  # and the W&B run it began
        id_file.unlink()
        shutil.rmtree(wandb_files, ignore_errors=True)
    for folder in (run_dir, run_dir.parent):
        if folder.is_dir() and not any(folder.iterdir()) and (folder == run_dir or folder.absolute() in MADE_RUNS_DIRS):
            folder.rmdir()


RECORD_FILES = ("config.yaml", "config.json", "summary.json", "metrics.jsonl")  # what RunRecord writes


def remove_untrained_run_dir(run_dir: Path) -> bool:
    """Remove ``run_dir`` (and ``runs_dir`` as :func:`remove_unused_run_dir` does) if it holds no more than a
    run's record (:data:`RECORD_FILES`), its W&B files and an empty ``checkpoints/``: the folder of a run stopped
    before its first step. Anything else in it (a checkpoint, a file of the user's) keeps it whole.

    Returns:
        Whether it was removed.
    """
    checkpoints = run_dir / "checkpoints"
    if {path.name for path in run_dir.iterdir()} - {*RECORD_FILES, "wandb_id", "wandb", "checkpoints"} or (
        checkpoints.is_dir() and any(checkpoints.iterdir())
    ):
        return False
    for name in (*RECORD_FILES, "wandb_id"):
        (run_dir / name).unlink(missing_ok=True)
    for folder in (checkpoints, run_dir / "wandb"):
        shutil.rmtree(folder, ignore_errors=True)
    remove_unused_run_dir(run_dir)
    return not run_dir.exists()


def _same_name(folder: Path, name: str) -> bool:
    return folder.name == name or (folder.name.startswith(name + "-") and folder.name[len(name) + 1 :].isdigit())


def checkpoint_files(run_dir: Path) -> dict:
    """The checkpoints in ``run_dir/checkpoints``, keyed as a finished run's record keys them: ``best`` (the
    newest ``best-step<S>.ckpt``: one is saved only when the metric improves), ``last`` and ``kept`` (the
    ``step<S>.ckpt`` of ``keep_last``, sorted), as absolute paths (as Lightning's ``ModelCheckpoint`` gives
    them); keys without a file are left out."""
    folder = Path(os.path.realpath(run_dir)) / "checkpoints"
    found: dict = {}
    bests = sorted(folder.glob("best-*.ckpt"), key=lambda path: path.stat().st_mtime)
    if bests:
        found["best"] = str(bests[-1])
    if (folder / "last.ckpt").is_file():
        found["last"] = str(folder / "last.ckpt")
    kept = sorted(str(path) for path in folder.glob("step*.ckpt"))
    return {**found, "kept": kept} if kept else found


def recorded_config(folder: Path) -> dict | None:
    """A run folder's ``config.json`` (flat fields), or ``None`` if it has none or it cannot be read."""
    try:
        return json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return None


def _with_checkpoint(runs_dir: Path, pattern: str, name: str | None) -> list[Path]:
    """Folders matching ``pattern`` (and named ``name[-k]`` when given) that have ``checkpoints/last.ckpt``,
    most recent first."""
    folders = [
        p
        for p in runs_dir.glob(pattern)
        if (name is None or _same_name(p, name)) and (p / "checkpoints" / "last.ckpt").exists()
    ]
    return _newest_first(folders)


def _newest_first(folders) -> list[Path]:
    return sorted(folders, key=lambda p: (p / "checkpoints" / "last.ckpt").stat().st_mtime, reverse=True)


def _nearest(fitting: list[Path], apart: dict[Path, list[str]]) -> Path:
    """Of the runs an evaluation may take (most recent first), the one of the fewest other fields (``apart``).

    Raises:
        RunFolderError: another run is as near in other ways (trained on two other data sets): no choice to
            make silently.
    """
    nearest = min(fitting, key=lambda folder: len(apart[folder]))
    rivals = [f for f in fitting if len(apart[f]) == len(apart[nearest]) and apart[f] != apart[nearest]]
    if rivals:
        shown = "; ".join(f"{f} ({', '.join(apart[f])})" for f in [nearest, *rivals][:3])
        raise RunFolderError(
            f"ckpt_path='last': {len(rivals) + 1} runs of this model differ from this command as much, each in "
            f"another way: {shown}; pass --ckpt_path with the checkpoint of one"
        )
    return nearest


def find_resumable(
    runs_dir: Path,
    name: str,
    flat_config: dict,
    family: str | None = None,
    prefix: str = "",
    preferred: tuple[Path, ...] = (),
    given: tuple[Path, ...] = (),
) -> Path:
    """The run folder with ``checkpoints/last.ckpt`` whose recorded configuration fits ``flat_config``: equals it
    but for the budget (or, with ``prefix``, in the fields of ``prefix``). Of several, one of ``preferred``,
    else the one of the fewest other fields (:func:`_nearest`), the most recent first.

    Args:
        runs_dir: where run folders are.
        name: the run name of the command.
        flat_config: the command's resolved config, dotted keys.
        family: a name prefix (``name`` without its config hash); when no run of ``name`` exists, the latest
            run of ``family-*`` is named in the error with the fields in which it differs.
        prefix: compare only the fields starting with it (``"model."`` to evaluate a run's checkpoint with
            other evaluation settings).
        preferred: run folders to take first where they fit (those whose ``config.yaml`` the command was given).
        given: the run folders whose ``config.yaml`` the command was given (the advice of the error).

    Raises:
        RunFolderError: if there is none, naming the fields in which the latest run of that name differs; or
            when two runs are as near in other ways.
    """
    folders = _with_checkpoint(runs_dir, f"{name}*", name)
    # evaluation settings may differ, and so may the name's hash; with no run of this name, a run of the family
    # whose name has another hash of the same identity (recorded with an alias: precision 32-true, not unset)
    if family and (prefix or not folders):
        folders = _newest_first({*folders, *_with_checkpoint(runs_dir, f"{family}-*", None)})
    known = {folder.resolve() for folder in folders}  # and a run here whose config.yaml was given, whatever its name
    here = [p for p in preferred if p.parent.resolve() == runs_dir.resolve()]
    folders += [p for p in here if (p / "checkpoints" / "last.ckpt").exists() and p.resolve() not in known]
    records = {folder: recorded_config(folder) for folder in folders}  # each read once
    fitting = [f for f in folders if records[f] is not None and not differences(records[f], flat_config, prefix)]
    chosen = [folder for folder in fitting if folder.resolve() in {p.resolve() for p in preferred}]
    if chosen:
        return chosen[0]
    if fitting:
        return _nearest(fitting, {folder: differences(records[folder], flat_config) for folder in fitting})
    if not folders:  # a changed headline knob (model.n_heads) names another family: this task's runs on this data
        folders = _newest_first(_same_classes(runs_dir, flat_config))
        records = {folder: recorded_config(folder) for folder in folders}
    nearest = _nearest_record({f: r for f, r in records.items() if r is not None}, flat_config, prefix)
    if nearest is not None:
        differs = differences(records[nearest], flat_config, prefix)
        raise RunFolderError(
            f"ckpt_path='last': no run of this configuration; the nearest, {nearest}, was trained with another "
            f"configuration: {', '.join(differs)}; "
            + own_config(nearest, differs, given, "evaluate" if prefix else "resume")  # prefix: an evaluation
        )
    raise RunFolderError(
        f"ckpt_path='last': no {runs_dir}/{name}*/checkpoints/last.ckpt of this configuration to load; "
        f"train it first, or pass --ckpt_path with a checkpoint file"
    )


def own_config(folder: Path, differs: list[str], given: tuple[Path, ...], verb: str) -> str:
    """How to ``verb`` (``resume``, ``evaluate``, ``continue``) the run of ``folder`` with the configuration it
    was trained with, which ``differs`` (``model.n_heads=8 (the run has 4)``) from the command's: with its
    ``config.yaml``, or, where the command was ``given`` that file already (its folder is one of them), without
    what changes it; a resume may also start a new run instead."""
    if folder.resolve() in {path.resolve() for path in given}:
        keys = ", ".join(dict.fromkeys(change.partition("=")[0] for change in differs))
        advice = (
            f"{folder / 'config.yaml'} is this command's config (given, or read from the checkpoint's run): drop "
            f"what sets {keys} (a flag, or a later --config) to {verb} it"
        )
    else:
        advice = f"{verb} it with its own config (--config {folder / 'config.yaml'})"
    return advice if verb == "evaluate" else f"{advice}, or start a new run without --ckpt_path"


def _same_classes(runs_dir: Path, flat_config: dict) -> list[Path]:
    """The run folders in ``runs_dir`` with ``checkpoints/last.ckpt`` whose task and data module are the command's
    (``model.class_path``, ``data.class_path``, ``data.path``), whatever their names."""
    keys = ("model.class_path", "data.class_path", "data.path")
    return [
        folder
        for folder in _with_checkpoint(runs_dir, "*", None)
        if all(
            canonical_value(key, (recorded_config(folder) or {}).get(key)) == canonical_value(key, flat_config.get(key))
            for key in keys
        )
    ]


def _nearest_record(records: dict[Path, dict], flat_config: dict, prefix: str) -> Path | None:
    """Of run folders (most recent first) and their records, the one of the fewest fields apart from
    ``flat_config`` (those of ``prefix`` first), the most recent of equals; ``None`` for none."""
    if not records:
        return None
    return min(
        records,
        key=lambda f: (len(differences(records[f], flat_config, prefix)), len(differences(records[f], flat_config))),
    )
