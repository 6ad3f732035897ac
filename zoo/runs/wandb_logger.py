"""The W&B side of a run's record: the mode (online, offline, disabled) and its checks, the run's grouping under a
sweep, the logger and its summaries."""

from __future__ import annotations

import netrc
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from lightning.pytorch.utilities import rank_zero_only

from zoo.runs.folders import recorded_config
from zoo.runs.record import EVALUATION_METRICS, _forget_wandb_settings, lower_is_better, run_grouping
from zoo.runs.wandb_guard import GuardedWandbLogger


def _has_api_key() -> bool:
    if os.environ.get("WANDB_API_KEY"):
        return True
    try:
        hosts = netrc.netrc().hosts
    except (OSError, netrc.NetrcParseError):
        hosts = {}
    return any("wandb" in host for host in hosts)


def wandb_mode() -> str:
    """``$WANDB_MODE`` if set; otherwise ``online`` when an API key is configured (``$WANDB_API_KEY`` or a
    netrc entry for api.wandb.ai), else ``offline``, so that no run ever stops at a login prompt.

    Raises:
        ValueError: ``WANDB_MODE=online`` without an API key (wandb would fail with a long traceback after the
            run folder was made).
    """
    mode = os.environ.get("WANDB_MODE") or ("online" if _has_api_key() else "offline")
    if mode == "online" and not _has_api_key():
        raise ValueError(
            "WANDB_MODE=online but no W&B API key is configured: run `wandb login`, set WANDB_API_KEY, "
            "or use WANDB_MODE=offline (runs are then uploaded later with `wandb sync`)"
        )
    return mode


def wandb_project(configured: str | None, default: str) -> str:
    """The W&B project of a run: ``configured`` (``--wandb_project``, or a config file's), else W&B's own
    ``$WANDB_PROJECT``, else ``default``. Outside a sweep a configured project wins over the variable,
    as ``wandb.init(project=...)`` does.

    Raises:
        ValueError: under a W&B sweep (``$WANDB_SWEEP_ID``, set by ``wandb agent``), a configured project other
            than the sweep's ``$WANDB_PROJECT``: W&B ignores ``init``'s project there, and the run would be logged
            to another project than its record says.
    """
    exported = os.environ.get("WANDB_PROJECT") or None
    if configured and exported and configured != exported and os.environ.get("WANDB_SWEEP_ID"):
        raise ValueError(
            f"wandb_project={configured!r} is not the project of the W&B sweep this run joins (WANDB_SWEEP_ID, "
            f"WANDB_PROJECT={exported!r}), where W&B would log it instead; leave --wandb_project out, or pass "
            f"--wandb_project={exported} where a config file sets it"
        )
    return configured or exported or default


def continued_project(run_dir: Path | None, configured: str | None, project: str) -> str:
    """The W&B project of a command on an existing run that continues its W&B run (a resumed ``fit``;
    ``validate``, ``test`` and ``predict`` of its checkpoint: ``run_dir/wandb_id`` holds the id): the project the
    run recorded, so that one W&B run is never split between projects; ``project`` (:func:`wandb_project`)
    elsewhere.

    Args:
        run_dir: the command's run folder (``None``: none).
        configured: ``wandb_project`` as the command line and its config files gave it (``None``: not given).
        project: what :func:`wandb_project` resolved it to (``configured``, ``$WANDB_PROJECT`` or the default).

    Raises:
        ValueError: where the run recorded another project and this command names one, by ``--wandb_project``
            (or a config file) or by ``$WANDB_PROJECT``: its logs would go to another project under the run's id.
    """
    if run_dir is None or not (run_dir / "wandb_id").is_file():
        return project
    recorded = (recorded_config(run_dir) or {}).get("wandb_project")
    if not recorded or recorded == project:
        return project
    exported = os.environ.get("WANDB_PROJECT") or None
    if configured or exported:
        named = f"wandb_project={configured!r}" if configured else f"WANDB_PROJECT={exported!r}"
        change = "leave --wandb_project out" if configured else "unset WANDB_PROJECT"
        raise ValueError(
            f"{named} is not the W&B project of {run_dir} ({recorded!r}, W&B run "
            f"{(run_dir / 'wandb_id').read_text().strip()}), which this command continues: one W&B run would be split "
            f"between two projects; {change} to continue it in {recorded!r}, or start a new run (fit without "
            f"--ckpt_path)"
        )
    return recorded  # nothing named a project: the run's own, not the default


def wandb_run_name(folder_name: str, typed: str | None = None) -> str:
    """The name a run shows in W&B: ``--run_name`` where typed (as ``wandb.init(name=...)`` wins over the
    variable), else W&B's own ``$WANDB_NAME`` where exported, else the run folder's name. The local folder is
    always ``folder_name``; a name exported for one run is not passed to a sweep's trials
    (:data:`zoo.sweep.runner.NOT_PASSED`)."""
    return typed or os.environ.get("WANDB_NAME") or folder_name


def make_wandb_logger(
    run_dir: Path, name: str, project: str, on_failure: Callable[[str], None] | None = None
) -> GuardedWandbLogger:
    """A W&B logger writing under ``run_dir``; a W&B failure turns it off and calls ``on_failure`` with a line
    (:class:`zoo.runs.wandb_guard.GuardedWandbLogger`), and training goes on.

    The run id is, in this order: the one kept in ``run_dir/wandb_id`` (a resumed training continues the same
    W&B run; under ``wandb agent`` the run folder resolution made it the agent's, :mod:`zoo.runs.wandb_agent`), the
    one ``wandb agent`` assigned (``$WANDB_RUN_ID``, so that the run joins its sweep), or a new one; it is then
    kept in ``run_dir/wandb_id`` by rank 0 (the other ranks log nothing to W&B). ``$WANDB_RUN_ID`` is set to it:
    under a sweep (``$WANDB_SWEEP_ID``) ``wandb.init`` takes that variable over its ``id`` argument.
    """
    mode = wandb_mode()
    os.environ["WANDB_MODE"] = mode  # child processes (DDP ranks) see the same decision
    os.environ.setdefault("WANDB_SILENT", "true")
    id_file = run_dir / "wandb_id"
    if id_file.exists():
        run_id = id_file.read_text().strip()
    else:
        run_id = os.environ.get("WANDB_RUN_ID") or secrets.token_hex(4)
        if getattr(rank_zero_only, "rank", 0) == 0:  # the W&B run is rank 0's; another rank's id would replace it
            run_dir.mkdir(parents=True, exist_ok=True)
            id_file.write_text(run_id)
    if os.environ.get("WANDB_RUN_ID", run_id) != run_id:  # a restart under a new id (zoo.runs.wandb_agent)
        os.environ["WANDB_RUN_ID"] = run_id
        _forget_wandb_settings()
    grouping = run_grouping()
    logger = GuardedWandbLogger(
        on_failure=on_failure,
        name=name,
        project=project,
        save_dir=str(run_dir),
        id=run_id,
        resume="allow",
        mode=mode,
        group=grouping["group"],
        job_type=grouping["job_type"],
    )
    logger._wandb_init.pop("anonymous", None)  # Lightning passes anonymous=None, which wandb warns about
    return logger


def define_summaries(logger: GuardedWandbLogger, fit: bool = True) -> None:
    """Give each validation metric its direction in W&B (``summary="min"`` for loss, perplexity and bits per
    character, ``"max"`` for BLEU, accuracy, F1, exact match), so that the run summary, a sweep's ``metric``
    and the parallel-coordinates and parameter-importance panels use the best value, not the last; a test
    metric's summary is its last value (the best over several tested checkpoints would choose on the test
    set). In a ``validate`` or ``test`` command (``fit=False``), which continues the run's W&B run, validation
    metrics get no summary (``"none"``): re-measuring a checkpoint leaves the best of ``fit``'s validations
    as the run's summary, as in its local record."""

    def define_all() -> None:
        for stage in ("val", "test"):
            for name in EVALUATION_METRICS:
                metric = f"{stage}_{name}"
                direction = "min" if lower_is_better(metric) else "max"
                summary = (direction if fit else "none") if stage == "val" else "last"  # the best test: chosen on it
                logger.experiment.define_metric(metric, step_metric="trainer/global_step", summary=summary)

    logger.safely("define_metric", define_all)
