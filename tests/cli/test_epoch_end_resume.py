"""A run stopped at the end of an epoch cut short by ``trainer.limit_train_batches`` (3 of the 17 batches of Tiny
Shakespeare's first 1,100 characters) and resumed with ``--ckpt_path last`` gives the losses of the uninterrupted
run exactly, whichever way it stopped there: ``max_steps``, ``trainer.should_stop`` (what ``max_time``'s timer and
``EarlyStopping`` set), SIGTERM or Ctrl-C during the epoch's last step, a kill after the checkpoint of that step,
and a ``max_epochs`` budget. Before, the checkpoint held the batch position ``{epoch: 0, batches: 3}`` (an epoch
of 3 batches taken whole was not whole) and Lightning resumed into an extra, empty epoch with one batch too many.
"""

import json
import signal

import pytest
import torch

from tests.cli.test_exact_resume import curve, short_epochs
from zoo.cli.main import main

LIMIT = ["--trainer.limit_train_batches=3", "--trainer.val_check_interval=5", "--trainer.check_val_every_n_epoch=null"]
TOTAL = 9  # three epochs of 3 batches
KILL_AFTER_CHECKPOINT = json.dumps({"class_path": "tests.cli.interrupter.InterruptAt", "init_args": {"step": 4}})
BUDGET = [f"--trainer.max_steps={TOTAL}"]
# the ways a run stops at step 3, the end of its first epoch: (the run's own arguments, which its resume repeats;
# the stopped run's budget; its environment)
WAYS = {
    "max_steps": ([], ["--trainer.max_steps=3"], {}),
    "should_stop": ([], BUDGET, {"ZOO_TEST_STOP": "3"}),
    "sigterm": ([], BUDGET, {"ZOO_TEST_SIGNAL": "2:SIGTERM"}),
    "ctrl_c": ([], BUDGET, {"ZOO_TEST_SIGNAL": "2:SIGINT"}),
    "max_epochs": ([], ["--trainer.max_steps=-1", "--trainer.max_epochs=1"], {}),
    # the checkpoint of every 3 steps, in the on_train_batch_end of step 3; the run dies (a second Ctrl-C) at the
    # start of step 4
    "kill_after_checkpoint": ([f"--trainer.callbacks+={KILL_AFTER_CHECKPOINT}"], BUDGET, {}),
}
# short_epochs has SignalFromEnv and a checkpoint every 3 steps already


def args(data_dir, cli_env, runs: str) -> list[str]:
    return [*short_epochs(data_dir, cli_env, runs), *LIMIT, "--trainer.callbacks+=tests.cli.interrupter.StopFromEnv"]


def run(arguments: list[str]) -> None:
    try:
        main(arguments)
    except SystemExit as exit_:  # a run stopped by SIGTERM (143) or Ctrl-C (130)
        assert exit_.code in (128 + signal.SIGTERM, 128 + signal.SIGINT), exit_.code


def losses(run_dir) -> list[float]:
    return [line["train_loss"] for line in curve(run_dir) if "train_loss" in line]


def last(run_dir) -> dict:
    return torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=False)


def position(checkpoint: dict) -> dict:
    return checkpoint["LanguageModelDataModule"]["train_position"]


def run_apart(folder, zoo_cache, arguments: list[str]):
    """The run folder of ``main(arguments)`` run in ``folder`` on one thread, as the ``cli_env`` fixture runs a
    test's (for module-scoped fixtures, which cannot use it): its runs folder is ``folder / "runs"``."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WANDB_MODE", "offline")
        patch.setenv("ZOO_CACHE", str(zoo_cache))
        patch.delenv("ZOO_RUN_DIR", raising=False)
        patch.chdir(folder)
        main(arguments)
    torch.set_num_threads(threads)
    (run_dir,) = (folder / "runs").iterdir()
    return run_dir


@pytest.fixture(scope="module")
def uninterrupted(data_dir, tmp_path_factory, zoo_cache):
    """The losses of the uninterrupted run (9 steps, 3 epochs) and its last checkpoint."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    run_dir = run_apart(folder, zoo_cache, [*args(data_dir, folder, "runs"), f"--trainer.max_steps={TOTAL}"])
    return losses(run_dir), last(run_dir)


@pytest.mark.parametrize("way", list(WAYS))
def test_a_run_stopped_at_a_shortened_epochs_end_resumes_to_the_uninterrupted_losses(
    way, uninterrupted, data_dir, cli_env, monkeypatch, one_thread, ctrl_c_reaches_this_process
):
    expected, expected_last = uninterrupted
    assert len(expected) == TOTAL
    own, budget, environment = WAYS[way]
    base = [*args(data_dir, cli_env, way), *own]
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    run([*base, *budget])
    for key in environment:
        monkeypatch.delenv(key)
    (run_dir,) = (cli_env / way).iterdir()
    checkpoint = last(run_dir)
    assert (checkpoint["global_step"], position(checkpoint)["epoch"]) == (3, 1), position(checkpoint)
    epochs = ["--trainer.max_steps=-1", "--trainer.max_epochs=3"]
    run([*base, *(epochs if way == "max_epochs" else BUDGET), "--ckpt_path=last"])
    assert losses(run_dir) == expected
    ended = last(run_dir)
    assert (ended["global_step"], ended["epoch"]) == (expected_last["global_step"], expected_last["epoch"])
    assert position(ended) == position(expected_last)
