"""W&B failing in the middle of a run (its service process dies, its folder's disk is full) does not stop
training: W&B is turned off in one line, and the local run record is complete."""

import errno

import pytest
import wandb

from tests.cli.helpers import read_run, shakespeare_args
from zoo.cli.main import main

FAILURES = {
    "service_died": (ConnectionResetError("Connection lost"), "ConnectionResetError: Connection lost"),
    "disk_full": (OSError(errno.ENOSPC, "No space left on device"), "OSError: [Errno 28] No space left on device"),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_training_goes_on_when_wandb_fails(data_dir, cli_env, monkeypatch, capsys, failure):
    error, described = FAILURES[failure]
    calls = []

    def log(run, data, *args, **kwargs):  # W&B's Run.log, failing from its third call on
        calls.append(data)
        if len(calls) >= 3:
            raise error

    monkeypatch.setattr(wandb.sdk.wandb_run.Run, "log", log)
    main([*shakespeare_args(data_dir), "--trainer.max_steps=6"])
    (run_dir,) = (cli_env / "runs").iterdir()
    record = read_run(run_dir)
    assert [line["step"] for line in record["metrics"] if "train_loss" in line] == list(range(6))
    assert record["summary"]["status"] == "finished" and record["summary"]["best"]["val_loss"]["step"] == 6
    message = f"W&B failed (log_metrics: {described}); it is off for the rest of this run"
    assert record["summary"]["wandb_error"] == message
    assert len(calls) == 3  # nothing more was sent after the failure
    err = capsys.readouterr().err
    assert f"zoo: {message}; training goes on and the run folder's record is complete\n" in err
    assert "wandb sync" not in err
    assert wandb.run is None  # a later command in this process starts its own W&B run
