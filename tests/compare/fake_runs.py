"""Run folders written the way :class:`zoo.runs.record.RunRecord` writes them, with metrics chosen by the test."""

from __future__ import annotations

import json
from pathlib import Path

BASE_CONFIG = {
    "model.class_path": "zoo.tasks.TranslationTask",
    "model.pe": "sinusoidal",
    "model.norm": "layernorm",
    "model.norm_position": "post",
    "model.n_heads": 8,
    "model.lr": 0.0005,
    "data.path": "../shared/data/multi30k",
    "data.seed": 0,
    "trainer.max_steps": 600,
}


def write_run(
    runs_dir: Path,
    name: str,
    curve: list[tuple[int, float]],
    metric: str = "val_bleu",
    knobs: dict | None = None,
    seed: int = 1,
    status: str = "finished",
    group: str | None = None,
    parameters: int = 24608,
    tokens_per_sec: tuple[float, ...] = (1000.0, 3000.0),
    wall_time_s: float = 60.0,
) -> Path:
    """Write ``runs_dir/name`` with config.json, metrics.jsonl and summary.json.

    Args:
        curve: ``(step, value)`` of ``metric``, logged in this order.
        knobs: config values that replace :data:`BASE_CONFIG`'s.
        tokens_per_sec: logged at training steps 1, 2, ...

    Returns:
        The run folder.
    """  # fmt: skip
    folder = runs_dir / name
    folder.mkdir(parents=True)
    config = {**BASE_CONFIG, **(knobs or {}), "seed_everything": seed, "run_name": name, "runs_dir": str(runs_dir)}
    (folder / "config.json").write_text(json.dumps(config))
    lines = [{"step": 0, "parameters": float(parameters)}]
    lines += [{"step": i + 1, "train_loss": 2.0, "tokens_per_sec": t} for i, t in enumerate(tokens_per_sec)]
    lines += [{"step": step, metric: value} for step, value in curve]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    lower = metric.endswith(("loss", "ppl", "bpc"))
    best_step, best = (min if lower else max)(curve, key=lambda point: point[1])
    summary = {
        "final": {"parameters": float(parameters), "train_loss": 2.0, "tokens_per_sec": tokens_per_sec[-1],
                  metric: curve[-1][1]},
        "best": {metric: {"value": best, "step": best_step}},
        "checkpoints": {"last": str(folder / "checkpoints" / "last.ckpt")},
        "status": status,
        "group": group,
        "job_type": ",".join(sorted(knobs)) if group and knobs else None,
        "sweep_id": None,
        "started": 1.0e9,
        "wall_time_s": wall_time_s,
    }  # fmt: skip
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder
