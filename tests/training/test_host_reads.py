"""No training step makes the host wait for the device outside the steps that log: the token count, the
non-finite guard, the gradient norm, the metrics and the progress bar stay on the device until then, so that on
a GPU the host can queue steps ahead (:mod:`tests.training.host_reads` counts the reads)."""

import json
import math
import os
import subprocess
import sys

import lightning.pytorch as pl
import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, VARIANTS, read_run
from tests.conftest import REPO
from tests.training.host_reads import CountEvaluationReads, CountingWithBoundaries, ReadCounter, with_callback
from zoo.cli.main import main

STEPS = 12


@pytest.fixture
def counted(monkeypatch):
    """A :class:`CountingWithBoundaries` added to the trainer that ``main`` builds."""
    counter = CountingWithBoundaries(STEPS)
    monkeypatch.setattr(pl.Trainer, "__init__", with_callback(pl.Trainer.__init__, counter))
    return counter


@pytest.mark.parametrize(
    ("variant", "precision"),
    [
        ("encoder_decoder", "32-true"),
        ("encoder_only", "32-true"),
        ("decoder_only", "32-true"),
        ("decoder_only", "bf16-mixed"),
    ],
)
def test_no_step_reads_the_device_outside_the_steps_that_log(data_dir, cli_env, counted, variant, precision):
    config, folder, extra, _ = VARIANTS[variant]
    args = [f"--trainer.max_steps={STEPS}", "--trainer.log_every_n_steps=5", "--trainer.val_check_interval=6"]
    main([
        "fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / folder}", *TINY_MODEL, *extra, *args,
        "--trainer.limit_val_batches=1", f"--trainer.precision={precision}", "--trainer.enable_model_summary=false",
    ])  # fmt: skip
    assert counted.logging_steps == {4, 9}
    reads = {step: dict(counts) for step, counts in counted.counter.reads.items()}
    quiet = counted.quiet(counted.counter.reads)
    assert quiet == {}, f"device-to-host reads at steps that do not log: {quiet}"
    assert reads.keys() >= {4, 9}  # the counter sees the reads of the steps that log


def test_the_counter_sees_each_kind_of_read():
    import torch

    x = torch.arange(4.0)
    with ReadCounter() as counter:
        counter.step = 0
        x.sum().item(), bool(x[0]), int(x[1]), float(x[2]), x.tolist(), x.cpu(), x[x > 1], f"{x[0]}"
    assert counter.reads[0] == {
        "item": 1, "__bool__": 1, "__int__": 1, "__float__": 1, "tolist": 1, "cpu": 1, "__getitem__": 1,
        "__format__": 1,
    }  # fmt: skip


DDP_STEPS = 8
# Lightning's own per training step under DDP (lightning 2.6, training_epoch_loop._broadcast_sigterm_tensor):
# rank 0 broadcasts whether it got SIGTERM, and each rank reads the flag
LIGHTNING_PER_STEP = {"lightning:broadcast": 1, "lightning:item": 1}


@pytest.mark.slow
def test_no_ddp_step_makes_a_collective_or_read_of_the_zoos_outside_the_steps_that_log(data_dir, zoo_cache, tmp_path):
    """Two DDP ranks on the CPU (gloo): the non-finite guard voted at every step (``reduce_boolean_decision``: a
    barrier and an all_reduce, and a read of the loss); the gradients it checks are averaged over the ranks, so
    the ranks decide alike without one. Rank 1's loss is NaN at step 2: both ranks skip that step (its averaged
    gradients are NaN on both), and the later losses are finite."""
    config, folder, extra, _ = VARIANTS["decoder_only"]
    counts = tmp_path / "counts"
    command = [
        sys.executable, "-m", "tests.training.ddp_reads", str(counts), str(DDP_STEPS),
        "fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / folder}", *TINY_MODEL, *extra,
        f"--trainer.max_steps={DDP_STEPS}", "--trainer.log_every_n_steps=3", "--trainer.val_check_interval=4",
        "--trainer.limit_val_batches=2", "--trainer.enable_model_summary=false", "--trainer.accelerator=cpu",
        "--trainer.devices=2", "--trainer.strategy=ddp", "--nonfinite_loss=skip", f"--runs_dir={tmp_path / 'runs'}",
        '--trainer.callbacks+={"class_path": "tests.cli.poison.PoisonLoss", "init_args": {"steps": [2], "rank": 1}}',
    ]  # fmt: skip
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache), "OMP_NUM_THREADS": "1"}
    env.pop("ZOO_RUN_DIR", None)
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    for rank in (0, 1):
        counted = json.loads((counts / f"rank{rank}.json").read_text())
        assert counted["logging_steps"] == [2, 5], rank
        quiet = counted["quiet"]
        assert set(quiet) == {"0", "1", "4", "6"}, rank  # 3: a validation follows; 7: the last
        zoos = {step: {k: n for k, n in calls.items() if k.startswith("zoo:")} for step, calls in quiet.items()}
        assert zoos == dict.fromkeys(quiet, {}), f"rank {rank}: the zoo's collectives and reads at quiet steps"
        # Lightning's own at each step (docs/performance.md): the broadcast of whether a rank got SIGTERM
        assert all(calls == LIGHTNING_PER_STEP for calls in quiet.values()), (rank, quiet)
    (run_dir,) = (tmp_path / "runs").iterdir()
    record = read_run(run_dir)
    assert record["summary"]["skipped_steps"] == [2]
    losses = [line["train_loss"] for line in record["metrics"] if "train_loss" in line]  # rank 0's, finite at 2
    assert len(losses) == 3 and all(math.isfinite(loss) for loss in losses), losses
    assert math.isfinite(record["summary"]["final"]["val_loss"])  # rank 0 did not step on the NaN gradients


@pytest.mark.parametrize(
    ("variant", "decoder"),
    [("encoder_decoder", []), ("encoder_decoder", ["--model.beam_size=3"]), ("encoder_only", []), ("decoder_only", [])],
)
def test_no_evaluation_batch_reads_the_device(data_dir, cli_env, monkeypatch, variant, decoder):
    """torchmetrics' aggregations read ``bool(isnan(x).any())`` at every update (584 reads in one short
    validation of the language model); the classifier's predictions and every prediction's index were read
    batch by batch; greedy search read ``finished.all()`` at every generated token, and the translations and
    continuations were read and decoded to text batch by batch. Now no batch reads the device: generated ids
    stay there until the evaluation or prediction ends (translation's BLEU batches, ``model.bleu_batches``, and
    every test batch; the generating tasks' predictions), and the decoding loop learns that every row has
    finished a few steps late, from a copy made without waiting."""
    counting = CountEvaluationReads()
    monkeypatch.setattr(pl.Trainer, "__init__", with_callback(pl.Trainer.__init__, counting))
    config, folder, extra, _ = VARIANTS[variant]
    limits = [f"--trainer.limit_{stage}_batches=3" for stage in ("val", "test", "predict")]
    common = ["--trainer.enable_model_summary=false", "--trainer.enable_progress_bar=false", *limits]
    main([
        "fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / folder}", *TINY_MODEL, *extra, *decoder,
        "--trainer.max_steps=2", "--trainer.val_check_interval=2", *common,
    ])  # fmt: skip
    (run_dir,) = (cli_env / "runs").iterdir()
    tested = any((data_dir / folder).glob("test.*"))  # SST-2's test split has no labels: it has none
    for command in ("test", "predict") if tested else ("predict",):
        main([command, f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}", *common])
    reads = {key: dict(counts) for key, counts in counting.counter.reads.items()}
    assert reads == {}
    predictions = [json.loads(line) for line in next(run_dir.glob("predictions.*.jsonl")).read_text().splitlines()]
    assert predictions and all(isinstance(line["prediction"], str | int) for line in predictions)  # read at the end
