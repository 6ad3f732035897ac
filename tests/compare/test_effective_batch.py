"""``zoo compare`` notes the runs whose optimiser steps averaged over different batches (another world size,
gradient accumulation), from their records or their W&B config, where the knobs alone would not show it."""

import json

from tests.compare.test_wandb import FakeApi, fake_api_run
from zoo.compare import wandb_runs

ONE_DEVICE = {"unit": "target tokens", "per_device": 3870.5, "world_size": 1, "accumulate_grad_batches": 1,
              "per_step": 3870.5}  # fmt: skip
EIGHT_DEVICES = {**ONE_DEVICE, "world_size": 8, "per_step": 30964.0}


def record(folder, batch: dict) -> None:
    summary = json.loads((folder / "summary.json").read_text())
    (folder / "summary.json").write_text(json.dumps({**summary, "effective_batch": batch, "world_size": 1}))


def test_runs_of_different_effective_batch_are_noted(runs_dir, compare_json):
    for folder in sorted(runs_dir.iterdir()):
        record(folder, EIGHT_DEVICES if folder.name == "ed-rope-s3" else ONE_DEVICE)
    # the runs in the table's order
    (note,) = [line for line in compare_json(runs_dir)["notes"] if "effective batch" in line]
    assert note == (
        "Runs of different effective batch (what one optimiser step averages over: a device's batch x world size x "
        "trainer.accumulate_grad_batches), so a Δ between them is the batch's as much as the knobs': 3870.5 target "
        "tokens a step (world size 1): ed-sinusoidal-s1, ed-sinusoidal-s2, ed-sinusoidal-s3, ed-rope-s1, "
        "ed-rope-s2; 30964 target tokens a step (world size 8): ed-rope-s3."
    )


def test_runs_of_one_effective_batch_or_none_recorded_have_no_note(runs_dir, compare_json):
    assert not [line for line in compare_json(runs_dir)["notes"] if "effective batch" in line]  # older records
    for folder in sorted(runs_dir.iterdir()):
        record(folder, ONE_DEVICE)
    assert not [line for line in compare_json(runs_dir)["notes"] if "effective batch" in line]


def test_wandb_runs_read_it_from_their_config_where_it_is_no_knob(runs_dir, compare_json, monkeypatch):
    api_runs = [fake_api_run(folder) for folder in sorted(runs_dir.iterdir())]
    for api_run in api_runs:
        batch = EIGHT_DEVICES if api_run.name == "ed-rope-s3" else ONE_DEVICE
        names = "NVIDIA H200" if api_run.name == "ed-rope-s3" else "cpu"  # differs, but is not a knob
        api_run.config.update({f"run.effective_batch.{key}": value for key, value in batch.items()})
        api_run.config.update({"run.world_size": batch["world_size"], "run.devices.names": names})
    monkeypatch.setattr(wandb_runs, "wandb_api", lambda: FakeApi(api_runs))
    online = compare_json("--wandb", "ent/proj")
    assert online["knobs"] == ["model.pe"]
    assert any("30964 target tokens a step (world size 8): ed-rope-s3." in line for line in online["notes"])
