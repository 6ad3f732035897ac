"""A run under ``wandb agent`` (or any launcher that sets ``$WANDB_RUN_ID``): the agent's own arguments, and
which run folder and W&B run a (re)started trial takes.

``wandb agent`` starts each trial with its parameters as flags (the sweep's ``command``, ``${args}``:
``--model.pe=rope``) and the run id it assigned in ``$WANDB_RUN_ID``. When it restarts a trial (a preempted
run, W&B's ``resume`` command) it gives back the run's whole W&B config as flags, with two kinds of keys that
are no field of ``zoo fit``: W&B's own ``_wandb`` (``--_wandb={'cli_version': ...}``) and the zoo's record of
where the run ran (``run.world_size``, ``run.effective_batch.per_step``, :data:`zoo.runs.devices.RUN_PREFIX`). Those
are dropped here (:func:`without_agent_arguments`); every other key is read as the field it names.

A restart without ``--ckpt_path`` must neither train again from step 0 in a new ``<name>-2`` folder under the
old W&B run (one W&B run with two curves) nor leave the agent's run empty. :func:`agent_restart` decides:
the run folder that holds the agent's id continues from its ``last.ckpt`` (folder, checkpoint, step and W&B id);
one without a checkpoint but with logged steps gives way to a clean run under a new id, said in one line."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import NamedTuple

from zoo.runs.folders import RunFolderError, recorded_config, remove_untrained_run_dir
from zoo.runs.identity import RUN_PREFIX, differences

# keys of a run's W&B config that are no field of `zoo fit`: W&B's own, and where the run ran
AGENT_KEYS = ("_wandb",)
AGENT_PREFIXES = (f"{RUN_PREFIX}.",)
ID_FILE = "wandb_id"


def _agent_key(argument: str) -> bool:
    key = argument.removeprefix("--").split("=", 1)[0]
    return argument.startswith("--") and (key in AGENT_KEYS or key.startswith(AGENT_PREFIXES))


def without_agent_arguments(args: list[str]) -> list[str]:
    """``args`` without the W&B config keys that are no field (:data:`AGENT_KEYS`, :data:`AGENT_PREFIXES`), in
    each form ``wandb agent`` passes them: ``--_wandb={...}`` (``${args}``, ``${args_no_boolean_flags}``) and
    ``--_wandb {...}`` (``${args_no_equals}``: the value is the next argument)."""
    kept: list[str] = []
    skip_value = False
    for argument in args:
        if skip_value:
            skip_value = False
            continue
        if _agent_key(argument):
            skip_value = "=" not in argument
            continue
        kept.append(argument)
    return kept


def agent_run_id() -> str | None:
    """The W&B run id ``wandb agent`` assigned this process (``$WANDB_RUN_ID``), or ``None``."""
    return os.environ.get("WANDB_RUN_ID") or None


def folder_of_id(runs_dir: Path, run_id: str) -> Path | None:
    """The run folder under ``runs_dir`` whose W&B run is ``run_id`` (its ``wandb_id`` file), or ``None``."""
    for id_file in sorted(runs_dir.glob(f"*/{ID_FILE}")):
        try:
            if id_file.read_text().strip() == run_id:
                return id_file.parent
        except OSError:
            continue
    return None


def _logged_steps(run_dir: Path) -> bool:
    """Whether the run logged any metric (to W&B as to ``metrics.jsonl``)."""
    metrics = run_dir / "metrics.jsonl"
    return metrics.is_file() and any(line.strip() for line in metrics.read_text().splitlines())


class TrialFinished(Exception):
    """A trial that ``wandb agent`` restarted after it had finished: nothing is left to train (exit status 0)."""


class Restart(NamedTuple):
    """What an earlier attempt of this trial (the run folder whose ``wandb_id`` is ``$WANDB_RUN_ID``) leaves to
    a ``fit`` without ``--ckpt_path``: the folder it ``continues`` (from its ``last.ckpt``), or an ``earlier``
    folder with no checkpoint (the new run starts from step 0); both ``None`` when no folder holds the id."""

    continues: Path | None = None
    earlier: Path | None = None


def agent_restart(runs_dir: Path, flat: dict) -> Restart:
    """The :class:`Restart` of a ``fit`` without ``--ckpt_path`` under ``wandb agent``.

    Args:
        runs_dir: where run folders are.
        flat: the command's resolved configuration, flat dotted keys.

    Raises:
        RunFolderError: the folder of the agent's run holds another configuration (budget aside).
    """
    run_id = agent_run_id()
    folder = folder_of_id(runs_dir, run_id) if run_id else None
    if folder is None:
        return Restart()
    differs = differences(recorded_config(folder) or {}, flat)
    if differs:
        raise RunFolderError(
            f"WANDB_RUN_ID={run_id} (wandb agent) is the W&B run of {folder}, trained with another configuration: "
            f"{', '.join(differs)}; continuing it would mix two runs in one W&B run: unset WANDB_RUN_ID for a new "
            f"run, or restart the trial with its own parameters"
        )
    if (folder / "checkpoints" / "last.ckpt").is_file():
        print(f"zoo: wandb agent restarted W&B run {run_id}: continuing its run folder {folder} from last.ckpt")
        return Restart(continues=folder)
    return Restart(earlier=folder)


def clear_attempt(earlier: Path) -> bool:
    """Remove the folder of an earlier attempt that logged nothing and saved no checkpoint (it holds no more
    than a run's record, :func:`zoo.runs.folders.remove_untrained_run_dir`), so that the trial takes its name
    and W&B run again; whether it is gone."""
    return not _logged_steps(earlier) and remove_untrained_run_dir(earlier)


def new_attempt_id(new_dir: Path, earlier: Path) -> None:
    """Give ``new_dir``, which restarts from step 0 the trial of ``earlier`` (an attempt that logged steps to
    the agent's W&B run but left no checkpoint), a new W&B id, and say why: under the agent's id the two
    attempts' curves would be one W&B run's."""
    run_id, new_id = agent_run_id(), secrets.token_hex(4)
    (new_dir / ID_FILE).write_text(new_id)
    print(
        f"zoo: W&B run {run_id} (WANDB_RUN_ID, wandb agent) holds the steps of its earlier attempt {earlier}, "
        f"which left no checkpoint to continue; this run starts from step 0 in {new_dir} under the new W&B id "
        f"{new_id}, so that no W&B run holds two curves"
    )


def adopt_agent_id(run_dir: Path, runs_dir: Path) -> None:
    """Under ``wandb agent``, make the agent's run id the W&B id of ``run_dir``, a run that ``--ckpt_path``
    continues (its stored id would leave the agent's run empty), and say so in one line.

    Raises:
        RunFolderError: another run folder already holds the agent's id (two runs would share a W&B run).
    """
    run_id = agent_run_id()
    id_file = run_dir / ID_FILE
    stored = id_file.read_text().strip() if id_file.is_file() else None
    if run_id is None or stored == run_id:
        return
    other = folder_of_id(runs_dir, run_id)
    if other is not None and other.resolve() != run_dir.resolve():
        raise RunFolderError(
            f"WANDB_RUN_ID={run_id} (wandb agent) is the W&B run of {other}; continuing {run_dir} under it would "
            f"mix two runs in one W&B run: continue {other}, or unset WANDB_RUN_ID"
        )
    id_file.write_text(run_id)
    _note_earlier_id(run_dir, stored)
    print(
        f"zoo: {run_dir} logged to W&B run {stored}; under wandb agent it continues in the agent's run {run_id} "
        f"(WANDB_RUN_ID), from its checkpoint's step on"
    )


def _note_earlier_id(run_dir: Path, stored: str | None) -> None:
    """Keep the W&B ids a run logged to before, in ``earlier_wandb_ids``, a file beside ``wandb_id``."""
    if stored is None:
        return
    file = run_dir / "earlier_wandb_ids"
    earlier = json.loads(file.read_text()) if file.is_file() else []
    file.write_text(json.dumps([*earlier, stored]))


def unread_parameter_form(args: list[str]) -> str | None:
    """Why ``args`` (a subcommand and its options) hold a sweep's parameters in a form ``zoo fit`` does not read:
    ``key=value`` (``${args_no_hyphens}``), a JSON object (``${args_json}``) or a JSON file
    (``${args_json_file}``) where an option is expected; ``None`` when there is none."""
    for before, argument in zip(args, args[1:], strict=False):
        if argument.startswith("-") or (before.startswith("--") and "=" not in before):
            continue  # an option, or the value of the option before it
        key = argument.split("=", 1)[0]
        if (
            ("=" in argument and key.replace(".", "").replace("_", "").isalnum())
            or argument.startswith("{")
            or (argument.endswith(".json"))
        ):
            return (
                f"{argument[:60]!r} is not an option: zoo fit reads --key=value; a sweep's command passes its "
                f"parameters so with ${{args}} (or ${{args_no_equals}}), not ${{args_no_hyphens}}, ${{args_json}} "
                f"or ${{args_json_file}}"
            )
    return None
