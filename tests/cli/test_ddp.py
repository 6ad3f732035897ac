"""Two-process DDP on CPU (gloo) through Lightning: one run record, one W&B run, disjoint data shares, and a
validation split of 8 rows (one batch) that still gives each rank a batch and counts each row once; for the
Transformer classifier and the recurrent one (a packed bidirectional LSTM, whose gradients DDP averages alike)."""

import os
import subprocess
import sys

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, read_run, small_copy
from tests.conftest import REPO


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "model"),
    [
        ("sst2.yaml", TINY_MODEL),
        ("sst2-rnn.yaml", ["--model.d_model=32", "--model.rnn_hidden=32", "--model.warmup_steps=2"]),
    ],
)
def test_ddp_two_ranks_on_cpu(data_dir, zoo_cache, tmp_path, config, model):
    data = small_copy(data_dir, "sst2", tmp_path / "sst2", {"train": 2000, "validation": 8})
    callbacks = tmp_path / "callbacks.yaml"
    shards = tmp_path / "shards"
    callbacks.write_text(
        "trainer:\n  callbacks:\n    - class_path: tests.cli.shard_recorder.RecordShards\n"
        f"      init_args:\n        folder: {shards}\n"
    )
    runs = tmp_path / "runs"
    args = [
        sys.executable,
        "-m",
        "zoo",
        "fit",
        "--config",
        str(CONFIGS / "encoder_only" / config),
        "--config",
        str(callbacks),
        f"--data.path={data}",
        *model,
        "--model.num_layers=1",
        "--data.vocab_size=500",
        "--data.max_tokens=512",
        f"--runs_dir={runs}",
        "--trainer.accelerator=cpu",
        "--trainer.devices=2",
        "--trainer.strategy=ddp",
        "--trainer.max_steps=4",
        "--trainer.val_check_interval=4",
        "--trainer.limit_val_batches=2",
        "--trainer.log_every_n_steps=1",
        "--trainer.enable_progress_bar=false",
    ]
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache), "OMP_NUM_THREADS": "1"}
    env.pop("ZOO_RUN_DIR", None)
    result = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sync_dist=True" not in result.stdout + result.stderr  # the metrics are synchronised by torchmetrics

    run_dirs = list(runs.iterdir())
    assert len(run_dirs) == 1, run_dirs
    record = read_run(run_dirs[0])
    assert record["summary"]["status"] == "finished" and "val_acc" in record["summary"]["final"]
    assert len(list((run_dirs[0] / "wandb").glob("offline-run-*"))) == 1

    seen = [
        [int(i) for line in (shards / f"rank{r}.txt").read_text().splitlines() for i in line.split()] for r in (0, 1)
    ]
    assert len(seen[0]) > 0 and len(seen[1]) > 0
    assert not set(seen[0]) & set(seen[1]), "the two ranks trained on overlapping examples"

    validated = {}  # step -> rank -> indices
    for rank in (0, 1):
        for line in (shards / f"validation-rank{rank}.txt").read_text().splitlines():
            step, indices = line.split(":")
            validated.setdefault(int(step), {}).setdefault(rank, []).extend(int(i) for i in indices.split())
    assert list(validated) == [4]
    assert all(validated[4][rank] for rank in (0, 1))
    assert sorted(validated[4][0] + validated[4][1]) == list(range(8))  # each row once: no double count
    accuracy = record["summary"]["final"]["val_acc"]
    assert round(accuracy * 8, 6) == round(accuracy * 8)  # a fraction of the 8 rows

    # continued on two ranks: each rank resumes from the file the launching rank found for `last`
    resumed = [arg for arg in args if arg != "--trainer.max_steps=4"] + ["--trainer.max_steps=6", "--ckpt_path=last"]
    result = subprocess.run(resumed, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert list(runs.iterdir()) == run_dirs
    record = read_run(run_dirs[0])
    assert record["summary"]["status"] == "finished"
    assert [line["step"] for line in record["metrics"] if "train_loss" in line] == list(range(6))
