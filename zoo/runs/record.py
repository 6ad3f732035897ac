"""Experiment tracking: the W&B logger (offline when no account is configured), the local run record that
``compare`` reads with no network, and run names and folders."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

from lightning.pytorch.loggers import Logger
from lightning.pytorch.utilities import rank_zero_info, rank_zero_only

from zoo.data.cache import atomic_write_text
from zoo.runs.folders import checkpoint_files
from zoo.runs.partial_evaluations import EVALUATION_PREFIXES, Apart, base_metric, mark_apart

LOWER_IS_BETTER = ("loss", "ppl", "bpc")


def run_grouping() -> dict:
    """The W&B ``group`` and ``job_type`` of this run, from W&B's own variables ``$WANDB_RUN_GROUP`` and
    ``$WANDB_JOB_TYPE`` (set by ``zoo sweep`` for each trial: the sweep's name and the knobs it varies), and the
    sweep id ``$WANDB_SWEEP_ID`` set by ``wandb agent``; absent ones are ``None``."""
    return {
        "group": os.environ.get("WANDB_RUN_GROUP") or None,
        "job_type": os.environ.get("WANDB_JOB_TYPE") or None,
        "sweep_id": os.environ.get("WANDB_SWEEP_ID") or None,
    }


def _forget_wandb_settings() -> None:
    """Make W&B read the environment again at its next ``wandb.init``: it reads it once per process (where
    ``main`` runs twice in one process, the second run would take the first one's ``$WANDB_RUN_ID``)."""
    import wandb

    if wandb.run is None:
        wandb.teardown()


EVALUATION_METRICS = ("loss", "ppl", "bpc", "acc", "f1", "bleu", "exact_match")


def flatten(config: dict, prefix: str = "") -> dict:
    """Nested config -> flat dotted keys (``model.pe``), dropping jsonargparse's ``init_args`` level."""
    flat = {}
    for key, value in config.items():
        dotted = prefix if key == "init_args" else f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, dotted))
        else:
            flat[dotted] = value if isinstance(value, (int, float, str, bool, type(None))) else str(value)
    return flat


def lower_is_better(metric: str) -> bool:
    return metric.rsplit("_", 1)[-1] in LOWER_IS_BETTER


def _is_evaluation(line: dict) -> bool:
    """Whether a logged line holds validation or test metrics, the run's or recorded apart
    (``full/val_loss``, ``beam_size=5/test_bleu``)."""
    return any(base_metric(key).startswith(EVALUATION_PREFIXES) for key in line)


# the fields of a metrics.jsonl line that are no metric: its step, in fit the run's wall time at it, and in a
# validate or test of a checkpoint the command (such lines are not training's: no best, no curve point)
LINE_FIELDS = ("step", "wall_time_s", "command")


def of_fit(line: dict) -> bool:
    """Whether a line of ``metrics.jsonl`` was logged by the run's ``fit`` (it has no ``command``), not by a
    later ``validate`` or ``test`` of one of its checkpoints."""
    return line.get("command", "fit") == "fit"


class RunRecord(Logger):
    """The local record of a run, in ``run_dir``:

    - ``config.json``: the resolved configuration, flat dotted keys;
    - ``metrics.jsonl``: one line per logging call, ``{"step": .., "<metric>": ..}``; a line of ``fit`` also holds
      ``wall_time_s``, the run's seconds of training and evaluation so far (as the summary's, summed over
      resumes), so that ``zoo compare --at wall=SECONDS`` finds each run's evaluations in time; a line of a later
      ``validate`` or ``test`` of a checkpoint holds ``"command": "validate"`` (or ``"test"``) instead, and no
      reader takes it for a point of training's curves (:func:`of_fit`);
    - ``summary.json``: ``final`` (the last value of each metric; of a validation metric, the value at the
      highest step, so that validating an earlier checkpoint leaves it alone) and its step in ``final_step``,
      ``best`` (the best value of each validation metric over ``fit``'s validations, and its step; lower is
      better for loss, perplexity and bits per character; test metrics have none, as the best test over
      several tested checkpoints would choose on the test set),
      ``checkpoints``, ``status``, ``group``/``job_type``/``sweep_id`` (see :func:`run_grouping`), ``started``
      (Unix time of the first start), ``wall_time_s`` (seconds of ``fit``'s training and evaluation, summed
      over resumes; a later ``validate``, ``test`` or ``predict`` of the run adds nothing to it) and
      ``partial_evaluations``, ``full_evaluations`` and ``settings_evaluations`` (``partial/<metric>``,
      ``full/<metric>``, ``beam_size=5/<metric>`` -> what the evaluation covered or its other settings,
      :mod:`zoo.runs.partial_evaluations`).

    Args:
        run_dir: the run folder.
        fit: whether the command is the run's `fit`: its time counts in ``wall_time_s`` and its validations in ``best``.
        command: the subcommand that is not ``fit`` (``validate``, ``test``), written on each of its lines.
    """

    def __init__(self, run_dir: Path, fit: bool = True, command: str = "validate") -> None:
        super().__init__()
        self.run_dir, self.fit, self.command = Path(run_dir), fit, "fit" if fit else command
        self.summary = self._read_summary()
        self.apart: Apart | None = None  # set when an evaluation is recorded apart from the run's
        self._wall_before, self._clock = self.summary.get("wall_time_s", 0.0), time.monotonic()

    def _read_summary(self) -> dict:
        """The run's ``summary.json``; a new one for a new run, or one rebuilt from ``metrics.jsonl`` where the
        file is damaged (written in place by versions before 2026-12-01, and cut by a kill -9)."""
        file = self.run_dir / "summary.json"
        if file.exists():
            try:
                return json.loads(file.read_text())
            except ValueError:
                rank_zero_info(f"zoo: warning: {file} was damaged (not JSON); rebuilt from metrics.jsonl")
                return self._rebuilt_summary()
        return self._new_summary()

    def _rebuilt_summary(self) -> dict:
        self.summary = self._new_summary()
        metrics = self.run_dir / "metrics.jsonl"
        lines = metrics.read_text().splitlines() if metrics.is_file() else []
        for text in lines:
            try:
                line = json.loads(text)
            except ValueError:  # blank, or the last line of a killed process cut short
                continue
            self._summarise({k: v for k, v in line.items() if k not in LINE_FIELDS}, line.get("step"), of_fit(line))
        return self.summary

    def _new_summary(self) -> dict:
        return {
            "final": {},
            "best": {},
            "checkpoints": {},
            "status": "running",
            "started": time.time(),
            "wall_time_s": 0.0,
            **run_grouping(),
        }

    @property
    def name(self) -> str:
        return self.run_dir.name

    @property
    def version(self) -> str:
        return "0"

    @property
    def save_dir(self) -> str:
        return str(self.run_dir)

    @rank_zero_only
    def log_hyperparams(self, params, *args, **kwargs) -> None:
        if not isinstance(params, dict) or "model.class_path" not in params:
            return  # only the CLI's flat config is recorded; Lightning's own hparams call is skipped
        self.run_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(json.dumps(params, indent=2, sort_keys=True), self.run_dir / "config.json")

    @rank_zero_only
    def log_metrics(self, metrics: dict, step: int | None = None) -> None:
        values = {k: float(v) for k, v in mark_apart(metrics, self.apart).items() if k != "epoch"}
        if not values:
            return
        if self.apart:
            listed = f"{self.apart.kind}_evaluations"
            self.summary[listed] = {
                **self.summary.get(listed, {}),
                **{key: self.apart.reason for key in values if key not in metrics},  # the renamed ones
            }
        self.run_dir.mkdir(parents=True, exist_ok=True)
        clock = {"wall_time_s": self._wall_time()} if self.fit else {"command": self.command}
        with open(self.run_dir / "metrics.jsonl", "a") as f:
            f.write(json.dumps({"step": step, **clock, **values}) + "\n")
        self._summarise(values, step, self.fit)
        self._write_summary()

    def _summarise(self, values: dict[str, float], step: int | None, fit: bool) -> None:
        """Update ``final`` and ``best`` with one logged line (``fit``: a line of the run's ``fit``): ``final``
        of a validation metric is its value at the highest step (a later ``validate`` of an earlier checkpoint
        leaves it alone), and ``best`` comes from ``fit``'s validations only (they chose the best checkpoint; a
        ``validate`` re-measures one)."""
        steps = self.summary.setdefault("final_step", {})
        for key, value in values.items():
            later = step is None or steps.get(key) is None or step >= steps[key]
            if not key.startswith("val_") or later:
                self.summary["final"][key], steps[key] = value, step
            if key.startswith("val_") and fit and math.isfinite(value):  # test_*: the last test
                best = self.summary["best"].get(key)
                better = best is None or (value < best["value"] if lower_is_better(key) else value > best["value"])
                if better:
                    self.summary["best"][key] = {"value": value, "step": step}

    @rank_zero_only
    def rewind(self, step: int) -> None:
        """Forget what a killed process logged after its last checkpoint, at ``step``, which the run resumed
        from that checkpoint logs again: training lines from ``step`` on and evaluation lines after it (an
        evaluation at ``step`` itself is not repeated). ``final`` and ``best`` are recomputed."""
        file = self.run_dir / "metrics.jsonl"
        if not file.exists():
            return
        lines = [json.loads(line) for line in file.read_text().splitlines() if line.strip()]
        kept = [line for line in lines if line["step"] is None or line["step"] < step + _is_evaluation(line)]
        if len(kept) == len(lines):
            return
        partial = file.with_suffix(".jsonl.partial")
        partial.write_text("".join(json.dumps(line) + "\n" for line in kept))
        partial.replace(file)
        self.summary["final"], self.summary["best"], self.summary["final_step"] = {}, {}, {}
        for line in kept:
            self._summarise({k: v for k, v in line.items() if k not in LINE_FIELDS}, line["step"], of_fit(line))
        self._write_summary()

    def _wall_time(self) -> float:
        """Seconds of ``fit`` so far, summed over resumes."""
        return round(self._wall_before + time.monotonic() - self._clock, 3)

    def _write_summary(self) -> None:
        if self.fit:
            self.summary["wall_time_s"] = self._wall_time()
        # to a temporary file, then renamed: a kill -9 mid-write keeps the previous summary, never half of one
        atomic_write_text(json.dumps(self.summary, indent=2, sort_keys=True), self.run_dir / "summary.json")

    @rank_zero_only
    def record(self, **fields) -> None:
        """Add top-level fields (``status``, ``checkpoints``, ...) to ``summary.json``."""
        self.summary.update(fields)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._write_summary()

    @rank_zero_only
    def reopen(self) -> None:
        """A resumed run is running again: how its earlier attempt ended (``status`` ``interrupted``,
        ``killed`` or ``failed``, its ``exit_code`` and ``error``) no longer describes it."""
        for stale in ("exit_code", "error"):
            self.summary.pop(stale, None)
        self.record(status="running")

    @rank_zero_only
    def finalize(self, status: str) -> None:
        if self.summary.get("status") == "interrupted" and status == "failed":
            return  # Lightning finalizes an interrupted run as "failed"; the interruption was recorded first
        self.summary["status"] = "finished" if status == "success" else status
        self._write_summary()


def record_checkpoints(record: RunRecord, checkpoint, status: str) -> None:
    """Record a finished command's ``status`` and its checkpoints (``best``, ``last``, ``kept``) in
    ``summary.json``, and say where they are; ``checkpoint`` is the trainer's ``ModelCheckpoint`` or ``None``
    (checkpointing off)."""
    if checkpoint is None:
        record.record(checkpoints={}, checkpointing=False, status=status)
        rank_zero_info("zoo: trainer.enable_checkpointing=false: no checkpoints were saved")
        return
    found = checkpoint_files(record.run_dir)  # the callback's paths where they are files, else what the folder has
    paths = {"best": checkpoint.best_model_path, "last": checkpoint.last_model_path}
    paths = {key: path if path and os.path.isfile(path) else found.get(key, "") for key, path in paths.items()}
    paths.update({key: v for key, v in found.items() if key == "kept"})
    record.record(checkpoints={k: v for k, v in paths.items() if v}, status=status)
    if paths["best"]:
        rank_zero_info(f"zoo: best checkpoint {paths['best']} (last: {paths['last']})")
    else:
        rank_zero_info(f"zoo: no validation ran, so no best checkpoint (last: {paths['last']})")
