"""Which run folder a command writes to, and whether the checkpoint it names fits it, decided before anything
is built.

``fit`` gets a new folder named after its configuration (:func:`zoo.runs.identity.run_name`); ``--ckpt_path last``
finds the latest run of the same configuration; ``--ckpt_path FILE`` continues or evaluates in the folder that
holds the file. The checkpoint must be one (:func:`check_loadable`), with the command's architecture, steps
left to train, and a run recorded with the same configuration. Every refusal is a
:class:`zoo.runs.folders.RunFolderError` of one line."""

from __future__ import annotations

import json
from pathlib import Path

from jsonargparse import Namespace

from zoo.messages import said
from zoo.runs.checkpoint_file import import_class, load_checkpoint, not_a_checkpoint_file
from zoo.runs.folders import RunFolderError, find_resumable, new_run_dir, own_config, recorded_config
from zoo.runs.identity import differences, run_family, run_name
from zoo.runs.lock import FolderInUse, hold
from zoo.runs.wandb_agent import (
    TrialFinished,
    adopt_agent_id,
    agent_restart,
    agent_run_id,
    clear_attempt,
    folder_of_id,
    new_attempt_id,
)

EVALUATING = ("validate", "test", "predict")


def check_same_run(run_dir: Path, flat: dict, prefix: str, given: tuple[Path, ...] = ()) -> None:
    """Raise ``RunFolderError`` if the run recorded in ``run_dir`` has another configuration (fields starting
    with ``prefix``) than the command that would continue or evaluate it, so its record is never rewritten by
    another configuration; ``given``: the run folders whose ``config.yaml`` the command was given."""
    recorded = run_dir / "config.json"
    differs = differences(json.loads(recorded.read_text()), flat, prefix) if recorded.exists() else []
    if differs:
        new_run = "" if prefix else ", or start a new run without --ckpt_path"  # prefix: an evaluation's fields
        advice = f"use its own config (--config {run_dir / 'config.yaml'}){new_run}"
        if run_dir.resolve() in {folder.resolve() for folder in given}:
            advice = own_config(run_dir, differs, given, "evaluate" if prefix else "continue")
        raise RunFolderError(f"{run_dir} was trained with another configuration: {', '.join(differs)}; {advice}")


def check_budget_left(config: Namespace) -> None:
    """Raise ``RunFolderError`` if the checkpoint to continue is already at or past ``trainer.max_steps``
    (Lightning would train nothing, and the run's record would be rewritten with the smaller budget)."""
    max_steps = config.trainer.get("max_steps")
    if max_steps is None or max_steps < 0:
        return
    step = load_checkpoint(config.ckpt_path).get("global_step", 0)
    if step >= max_steps:
        raise RunFolderError(
            f"ckpt_path={config.ckpt_path!r} is already at step {step} >= trainer.max_steps={max_steps}; "
            f"pass a larger --trainer.max_steps to continue it"
        )


def check_resumable(ckpt_path: str) -> None:
    """Raise ``RunFolderError`` if ``fit`` cannot continue from ``ckpt_path``: a checkpoint of weights only
    (``python -m zoo average`` writes such), which Lightning would refuse only once the run folder is in use."""
    checkpoint = load_checkpoint(ckpt_path)
    if not checkpoint.get("optimizer_states") or "loops" not in checkpoint:
        raise RunFolderError(
            f"ckpt_path={ckpt_path!r} holds weights only (no optimiser or loop state: an average of checkpoints, "
            f"or one saved with save_weights_only); fit continues from a run's own checkpoints (last.ckpt, "
            f"best-step<N>.ckpt); evaluate this one with validate or test"
        )


def check_same_model(config: Namespace, evaluating: bool = False) -> None:
    """Raise ``RunFolderError`` if the architecture in ``config`` (the task's ``architecture`` knobs) differs
    from the one the checkpoint was trained with (a resumed run cannot change shapes; an evaluated one cannot
    load); ``evaluating``: for ``validate``, ``test`` or ``predict``, which start no run."""
    saved = load_checkpoint(config.ckpt_path).get("hyper_parameters", {})
    trained = saved.get("_class_path")
    if trained is not None and trained != config.model.class_path:
        raise RunFolderError(
            f"ckpt_path={config.ckpt_path!r} holds a {trained.rpartition('.')[2]}, not a "
            f"{config.model.class_path.rpartition('.')[2]}; pass the config it was trained with"
        )
    current = config.model.init_args
    differs = [
        f"model.{key}={said(current[key])} (the checkpoint has {said(saved[key])})"
        for key in import_class(config.model.class_path).architecture
        if key in saved and key in current and saved[key] != current[key]
    ]
    differs = [line for line in differs if line.startswith("model.architecture=")] or differs  # the others follow
    if differs:
        owner = Path(str(config.ckpt_path)).resolve().parent.parent  # runs/<name>/checkpoints/x.ckpt
        own = owner / "config.yaml"
        where = f"--config {own}" if own.is_file() else "in its run folder's config.yaml"
        new_run = "" if evaluating else ", or start a new run without --ckpt_path"
        advice = f"pass the values it was trained with ({where}){new_run}"
        if owner in {folder.resolve() for folder in _given_runs(config)}:
            advice = own_config(owner, differs, _given_runs(config), "evaluate" if evaluating else "continue")
        raise RunFolderError(
            f"ckpt_path={config.ckpt_path!r} was trained with another configuration: {', '.join(differs)}; {advice}"
        )


def run_names(config: Namespace, flat: dict, any_data: bool = False) -> tuple[str, str]:
    """The automatic run name of a subcommand's config and its family (the name without the config hash; a
    glob of every data set's when ``any_data``: a checkpoint may be evaluated on other data than it was
    trained on)."""
    model, data = config.model, config.data
    task, data_module = import_class(model.class_path), import_class(data.class_path)
    path = str(data.init_args.get("path") or "data")
    local = Path(path).expanduser()  # a folder by its own name: "." and a link to it name it too
    folder = local.resolve().name if local.is_dir() else Path(path.rstrip("/")).name
    data_name = getattr(data_module, "run_label", None) or folder
    data_name = data_name.lower().replace("_", "")
    family = run_family(task.short_name, "*" if any_data else data_name, flat)
    return run_name(task.short_name, data_name, flat), family


def resolve_run_dir(subcommand: str, config: Namespace, flat: dict) -> Path | None:
    """The run folder of a subcommand, after the checks of its checkpoint; sets ``config.ckpt_path`` to the
    checkpoint file that ``--ckpt_path last`` stands for.

    Args:
        subcommand: ``fit``, ``validate``, ``test`` or ``predict``.
        config: the subcommand's parsed config.
        flat: the same config flattened to dotted keys, without the CLI's bookkeeping fields.

    Returns:
        The folder: a new one for ``fit``, the checkpoint's own for ``--ckpt_path``, or ``None`` when an
        evaluation's checkpoint lies outside any run folder.

    Raises:
        RunFolderError: an evaluation without ``--ckpt_path``, or a checkpoint that does not fit.
    """
    evaluating = subcommand in EVALUATING
    name, family = (config.run_name, None) if config.run_name else run_names(config, flat, any_data=evaluating)
    runs_dir, ckpt_path = Path(config.runs_dir), config.get("ckpt_path")
    prefix = "model." if evaluating else ""
    if evaluating and not ckpt_path:
        raise RunFolderError(
            f"{subcommand} needs a trained model: pass --ckpt_path with a checkpoint file, or "
            f"--ckpt_path last for the latest run of this config"
        )
    if ckpt_path == "last":
        given = _given_runs(config)
        preferred = (*given, *_agent_folder(runs_dir, evaluating))
        try:
            found = find_resumable(runs_dir, name, flat, family, prefix, preferred, given)
        except RunFolderError as error:
            raise RunFolderError(f"{error}{_moved_run_hint(config, runs_dir)}") from None
        config.ckpt_path = str(found / "checkpoints" / "last.ckpt")
        _check_checkpoint(config, evaluating)
        if not evaluating:
            adopt_agent_id(found, runs_dir)
        if evaluating and (other := differences(recorded_config(found) or {}, flat, "data.")):  # e.g. other data
            print(f"zoo: --ckpt_path last is the run {found.name}, trained on other data: {', '.join(other)}")
        return found
    if ckpt_path:
        if not Path(ckpt_path).is_file():
            raise RunFolderError(not_a_checkpoint_file(ckpt_path, "ckpt_path"))
        owner = Path(ckpt_path).resolve().parent.parent
        recorded = (owner / "summary.json").exists()
        check_same_model(config, evaluating)
        if recorded:  # another configuration before the budget: a larger budget would not make it right
            check_same_run(owner, flat, prefix, _given_runs(config))
        if not evaluating:
            check_resumable(ckpt_path)
            check_budget_left(config)
        if recorded:
            if not evaluating:
                adopt_agent_id(owner, runs_dir)
            return owner
    return _fit_run_dir(config, runs_dir, name, flat) if subcommand == "fit" else None


def _fit_run_dir(config: Namespace, runs_dir: Path, name: str, flat: dict) -> Path:
    """The folder of a ``fit`` without ``--ckpt_path``: under ``wandb agent`` the earlier attempt of this trial
    where it left a checkpoint (``config.ckpt_path`` is set to it, :func:`zoo.runs.wandb_agent.agent_restart`), else
    a new one; a new one that restarts an attempt which logged steps but left no checkpoint gets a new W&B id."""
    restart = agent_restart(runs_dir, flat) if not config.get("ckpt_path") else None
    if restart and restart.continues is not None:
        config.ckpt_path = str(restart.continues / "checkpoints" / "last.ckpt")
        _check_finished(config, restart.continues)
        _check_checkpoint(config, evaluating=False)
        return restart.continues
    earlier = restart.earlier if restart else None
    if earlier is not None and clear_attempt(earlier):
        earlier = None  # it logged nothing: the new run takes its name and the agent's W&B run
    run_dir = _new_run_dir(runs_dir, name)
    if earlier is not None:
        new_attempt_id(run_dir, earlier)
    return run_dir


def _check_finished(config: Namespace, folder: Path) -> None:
    """Raise :class:`TrialFinished` where the trial ``wandb agent`` restarted had already trained its budget
    (a restart the agent sent after the run ended): its record stands, and no ``--ckpt_path`` the user never
    typed is refused."""
    max_steps = config.trainer.get("max_steps")
    step = load_checkpoint(config.ckpt_path).get("global_step", 0)
    if max_steps is not None and 0 <= max_steps <= step:
        raise TrialFinished(
            f"wandb agent restarted W&B run {agent_run_id()}, whose run folder {folder} had finished (step {step}, "
            f"trainer.max_steps={max_steps}): nothing is left to train; its record stands"
        )


def _agent_folder(runs_dir: Path, evaluating: bool) -> tuple[Path, ...]:
    """The run folder of the W&B run ``wandb agent`` assigned this ``fit`` (``$WANDB_RUN_ID``), if any."""
    run_id = None if evaluating else agent_run_id()
    folder = folder_of_id(runs_dir, run_id) if run_id else None
    return (folder,) if folder is not None else ()


def _new_run_dir(runs_dir: Path, name: str) -> Path:
    """:func:`new_run_dir`, saying so when the name is taken: ``-2`` is never silent."""
    run_dir = new_run_dir(runs_dir, name)
    if run_dir.name != name:
        try:
            status = json.loads((runs_dir / name / "summary.json").read_text()).get("status")
        except (OSError, ValueError, AttributeError):  # no record yet (a run starting), or a damaged one
            status = None
        held = f"a {status} run" if isinstance(status, str) else "a run"
        print(f"zoo: {runs_dir / name} holds {held} of this configuration; this one is {run_dir}")
    return run_dir


def _given_runs(config: Namespace) -> tuple[Path, ...]:
    """The run folders whose own ``config.yaml`` the command was given with ``--config``."""
    folders = [Path(str(g.absolute if hasattr(g, "absolute") else g)).parent for g in config.get("config") or []]
    return tuple(folder for folder in folders if (folder / "summary.json").is_file())


def _moved_run_hint(config: Namespace, runs_dir: Path) -> str:
    """Where ``--config`` is a run's own ``config.yaml`` in another runs folder than ``runs_dir`` (which that file
    records: the folder was moved, or the run was made with another ``--runs_dir``), the option to pass."""
    for folder in _given_runs(config):
        if folder.parent.resolve() != runs_dir.resolve():
            return f" (--config is the record of a run in {folder.parent}: pass --runs_dir {folder.parent})"
    return ""


def hold_run_folder(run_dir: Path, subcommand: str) -> None:
    """Lock ``run_dir`` for this command (:mod:`zoo.runs.lock`), before anything is written in it.

    Raises:
        RunFolderError: another command (``fit``, ``validate``, ``test`` or ``predict``) is still writing it.
    """
    try:
        hold(run_dir)
    except FolderInUse:
        advice = (
            "copy the checkpoint out of the run folder to evaluate it without recording"
            if subcommand in EVALUATING
            else "start a new run without --ckpt_path"
        )
        raise RunFolderError(
            f"run folder {run_dir} is in use: another zoo command (fit, validate, test or predict) is still "
            f"writing it; wait for it to end, or {advice}"
        ) from None


def _check_checkpoint(config: Namespace, evaluating: bool) -> None:
    check_same_model(config, evaluating)
    if not evaluating:
        check_resumable(config.ckpt_path)
        check_budget_left(config)


def evaluation_tokenizers(subcommand: str, config: Namespace, run_dir: Path | None, data) -> dict[str, str] | None:
    """The tokenizers (name -> JSON) that ``validate``, ``test`` or ``predict`` of ``config.ckpt_path`` read
    the data with: the checkpoint's own, so that any data is read with the ids its model learned (and a folder
    of the evaluated split alone is enough); ``None`` for ``fit``, or a checkpoint without them.

    Raises:
        ValueError: a ``data.tokenizer`` or ``data.vocab_size`` (of ``data``, the data module) other than the
            run's record holds: unused, it would be recorded as a setting of the evaluation.
    """
    from zoo.data.tokenizer import checkpoint_tokenizers

    ckpt_path = config.get("ckpt_path") if subcommand in EVALUATING else None
    tokenizers = checkpoint_tokenizers(load_checkpoint(ckpt_path)) if ckpt_path else None
    recorded = recorded_config(run_dir) if tokenizers and run_dir is not None else None
    current = {"data.tokenizer": data.tokenizer_kind, "data.vocab_size": data.vocab_size}
    for field, value in current.items():
        if recorded and field in recorded and recorded[field] != value:
            raise ValueError(
                f"{field}={value!r} is not used by `{subcommand}` of a checkpoint, which reads the data with the "
                f"checkpoint's own tokenizer (the run has {field}={recorded[field]!r}); leave it out, or give the "
                f"run's own config (--config {run_dir / 'config.yaml'}) where a config file sets it"
            )
    return tokenizers
