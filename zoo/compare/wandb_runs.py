"""Loading runs from W&B through its public API (``wandb.Api().runs``), the online twin of :mod:`.records`."""

from __future__ import annotations

from typing import Any

from zoo.compare.arguments import CompareError
from zoo.compare.metrics import better
from zoo.compare.records import Run, history_from_rows, mark_not_applying, run_conditions
from zoo.runs.identity import RUN_PREFIX
from zoo.runs.wandb_logger import wandb_mode

STEP_KEYS = ("trainer/global_step", "_step")  # Lightning's WandbLogger logs the trainer step under the first


def wandb_api() -> Any:
    """A ``wandb.Api`` object; fails at once when W&B is offline rather than waiting on the network.

    Raises:
        CompareError: if ``$WANDB_MODE`` is offline/disabled or no API key is configured.
    """
    mode = wandb_mode()
    if mode != "online":
        raise CompareError(
            f"W&B is {mode} (no API key, or WANDB_MODE={mode}): run `wandb login`, or compare the local run "
            "folders instead (zoo compare runs/...)"
        )
    import wandb

    return wandb.Api(timeout=30)


def _history(api_run: Any) -> dict[str, list[tuple[int, float]]]:
    rows = []
    for row in api_run.scan_history():
        step = next((row[key] for key in STEP_KEYS if row.get(key) is not None), 0)
        metrics = {k: v for k, v in row.items() if not k.startswith("_") and k not in STEP_KEYS}
        if row.get("_runtime") is not None:  # seconds since the run started: where --at wall=SECONDS finds it
            metrics["wall_time_s"] = row["_runtime"]
        rows.append({"step": step, **metrics})
    return history_from_rows(rows)


def run_from_wandb(api_run: Any) -> Run:
    """A :class:`Run` from a ``wandb.apis.public.Run``: its config, state, group, job type, runtime and the
    whole history (``scan_history``), from which the final and best values are taken."""
    history = _history(api_run)
    best = {}
    for metric, points in history.items():
        for _, value in points:
            if metric not in best or better(metric, value, best[metric]):
                best[metric] = value
    summary = dict(api_run.summary)
    config = {k: v for k, v in dict(api_run.config).items() if not k.startswith("_")}
    batch = f"{RUN_PREFIX}.effective_batch."
    return Run(
        name=api_run.name,
        # where it ran is no knob; nor is a knob its model.architecture does not use
        config=mark_not_applying({k: v for k, v in config.items() if not k.startswith(f"{RUN_PREFIX}.")}),
        history=history,
        final={metric: points[-1][1] for metric, points in history.items()},
        best=best,
        status=api_run.state,
        group=api_run.group,
        job_type=api_run.job_type,
        wall_time_s=summary.get("_runtime"),
        source=f"{api_run.entity}/{api_run.project}/{api_run.id}",
        effective_batch={k.removeprefix(batch): v for k, v in config.items() if k.startswith(batch)} or None,
        conditions=run_conditions({k.removeprefix(f"{RUN_PREFIX}."): v for k, v in config.items()}),
    )


def load_wandb_runs(path: str, api: Any = None) -> list[Run]:
    """The runs of a W&B project, or of one group (sweep) in it.

    Args:
        path: ``ENTITY/PROJECT`` or ``ENTITY/PROJECT/GROUP``.
        api: a ``wandb.Api``-like object (tests pass a fake); by default :func:`wandb_api`.

    Returns:
        The runs, oldest first.

    Raises:
        CompareError: for a malformed path, when W&B cannot be reached, or when it holds no such runs.
    """
    parts = path.strip("/").split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise CompareError(f"--wandb {path!r} is not ENTITY/PROJECT or ENTITY/PROJECT/GROUP")
    filters = {"group": parts[2]} if len(parts) == 3 else None
    try:
        api = api or wandb_api()
        runs = [run_from_wandb(r) for r in api.runs("/".join(parts[:2]), filters=filters, order="+created_at")]
    except CompareError:
        raise
    except Exception as error:  # the W&B client raises many types (usage, HTTP, GraphQL); all end here
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CompareError(f"cannot read W&B runs of {path!r}: {reason}") from error
    if not runs:
        raise CompareError(f"W&B has no runs in {path!r}")
    return runs
