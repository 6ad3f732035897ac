"""Batches built by DataLoader worker processes are the batches built in the training process: the same losses,
and a run stopped mid-epoch with workers fetching ahead resumes to the losses of the uninterrupted run (the train
sampler counts the batches training took, not those the workers fetched)."""

import pytest

from tests.cli.test_epoch_end_resume import TOTAL, args, last, losses, position, uninterrupted  # noqa: F401
from zoo.cli.main import main

WORKERS = "--data.num_workers=2"


def test_workers_train_on_the_same_batches(uninterrupted, data_dir, cli_env, one_thread):  # noqa: F811
    expected, _ = uninterrupted
    main([*args(data_dir, cli_env, "workers"), WORKERS, f"--trainer.max_steps={TOTAL}"])
    (run_dir,) = (cli_env / "workers").iterdir()
    assert losses(run_dir) == expected


@pytest.mark.parametrize("stop", [4, 6])  # inside the second epoch of 3 batches, and at the end of it
def test_a_run_with_workers_stopped_and_resumed_gives_the_uninterrupted_losses(
    stop, uninterrupted, data_dir, cli_env, one_thread  # noqa: F811
):
    expected, expected_last = uninterrupted
    base = [*args(data_dir, cli_env, "stopped"), WORKERS]
    main([*base, f"--trainer.max_steps={stop}"])
    (run_dir,) = (cli_env / "stopped").iterdir()
    assert last(run_dir)["global_step"] == stop
    main([*base, f"--trainer.max_steps={TOTAL}", "--ckpt_path=last"])
    assert losses(run_dir) == expected
    assert position(last(run_dir)) == position(expected_last)
