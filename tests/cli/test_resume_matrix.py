"""A run stopped at any boundary and resumed gives the steps and losses of one straight run exactly: mid-epoch,
at an epoch's end, right after a validation, near an epoch's end with DataLoader workers fetching ahead, under
``limit_train_batches``, with ``max_epochs`` raised, from ``last.ckpt`` and from a ``best-step*.ckpt`` (a rewind:
the steps after it are trained again). Real data: Tiny Shakespeare's first 1,100 characters (17 batches an epoch,
:func:`tests.cli.test_exact_resume.short_epochs`), a tiny model, validation every 5 batches.

One held-back check once reported an epoch lost when resuming from an epoch-end checkpoint with workers on. At
the epoch's end it did not reproduce; two batches before it, it did: the resumed run's workers read the rest of
the epoch before training took a batch of it, the sampler counted the epoch as read, and the run skipped the
first batches of the next epoch (step 17's loss differed). Only the batches training takes move the position now
(:meth:`zoo.data.batching.ShardedBatchSampler.follow_training`).
"""

from __future__ import annotations

import pytest
import torch

from tests.cli.test_epoch_end_resume import last, position, run, run_apart
from tests.cli.test_exact_resume import curve, short_epochs

EVERY = ["--trainer.val_check_interval=5"]
LIMIT = ["--trainer.limit_train_batches=5", "--trainer.check_val_every_n_epoch=null"]
WORKERS = ["--data.num_workers=2"]
EPOCHS = ["--trainer.max_steps=-1", "--trainer.max_epochs=2"]
# the straight runs: two epochs of 17 batches; three epochs cut to 5 batches
STRAIGHT = {"full": ["--trainer.max_steps=34"], "limited": [*LIMIT, "--trainer.max_steps=15"]}
# cell: (straight run, the arguments of both halves, the first half's budget, the checkpoint resumed from)
CELLS = {
    "mid_epoch": ("full", [], ["--trainer.max_steps=8"], "last"),
    "epoch_end": ("full", [], ["--trainer.max_steps=17"], "last"),
    "after_validation": ("full", [], ["--trainer.max_steps=10"], "last"),
    "max_epochs_raised": ("full", [], ["--trainer.max_steps=-1", "--trainer.max_epochs=1"], "last"),
    "workers_epoch_end": ("full", WORKERS, ["--trainer.max_steps=17"], "last"),
    "workers_past_the_last_batch": ("full", WORKERS, ["--trainer.max_steps=15"], "last"),  # fetched to 17
    "best_step": ("full", [], ["--trainer.max_steps=10"], "best"),  # best-step10.ckpt, of the validation at 10
    "limited_epoch_end_workers": ("limited", WORKERS, ["--trainer.max_steps=5"], "last"),
    "limited_mid_epoch": ("limited", [], ["--trainer.max_steps=7"], "last"),
}


def arguments(data_dir, folder, runs: str, straight: str) -> list[str]:
    return [*short_epochs(data_dir, folder, runs), *EVERY, *(LIMIT if straight == "limited" else [])]


@pytest.fixture(scope="module")
def straight(data_dir, tmp_path_factory, zoo_cache) -> dict:
    """Each straight run's curve and last checkpoint (its step, epoch and batch position)."""
    runs = {}
    for name, budget in STRAIGHT.items():
        folder = tmp_path_factory.mktemp(name)
        run_dir = run_apart(folder, zoo_cache, [*arguments(data_dir, folder, "runs", name), *budget])
        runs[name] = curve(run_dir), last(run_dir)
    return runs


def lines(curve: list[dict], metric: str) -> list[dict]:
    return [line for line in curve if metric in line]


def resume_budget(straight: str, budget: list[str]) -> list[str]:
    if "--trainer.max_epochs=1" in budget:
        return EPOCHS  # raised from 1 to 2: the straight run's 34 steps
    return STRAIGHT[straight][-1:]


@pytest.mark.parametrize("cell", list(CELLS))
def test_a_run_stopped_at_any_boundary_resumes_to_the_straight_runs_steps_and_losses(
    cell, straight, data_dir, cli_env, one_thread
):
    name, own, budget, source = CELLS[cell]
    expected, expected_last = straight[name]
    base = [*arguments(data_dir, cli_env, cell, name), *own]
    run([*base, *budget])
    (run_dir,) = (cli_env / cell).iterdir()
    stopped = last(run_dir)["global_step"]
    checkpoint = "last"
    if source == "best":
        (best,) = (run_dir / "checkpoints").glob("best-step*.ckpt")
        checkpoint = str(best)
        assert torch.load(best, weights_only=False)["global_step"] == stopped
    run([*base, *resume_budget(name, budget), f"--ckpt_path={checkpoint}"])
    assert lines(curve(run_dir), "train_loss") == lines(expected, "train_loss"), cell
    # the stopped run validated at its last step (every fit does), where the straight run may not have
    validated = [line for line in lines(curve(run_dir), "val_loss") if line["step"] != stopped]
    assert validated == [line for line in lines(expected, "val_loss") if line["step"] != stopped], cell
    ended = last(run_dir)
    assert (ended["global_step"], ended["epoch"]) == (expected_last["global_step"], expected_last["epoch"]), cell
    assert position(ended) == position(expected_last), cell
