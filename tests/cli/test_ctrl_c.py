"""Ctrl-C keeps the work: a real ``fit`` process gets SIGINT while it trains, saves ``last.ckpt`` at the end of
that step (it lost every step since the last validation), ends in one line saying where and how to resume, and
``--ckpt_path last`` continues it exactly; a run stopped before its first step leaves no folder to push the next
run of its configuration to ``-2``."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest
import torch

from tests.cli.helpers import FEW_STEPS, read_run, shakespeare_args
from tests.conftest import REPO
from zoo.cli.main import main

RUN = ["--model.dropout=0.1", "--model.schedule=constant", "--trainer.val_check_interval=400"]


def train_steps(run_dir) -> list[int]:
    return [line["step"] for line in read_run(run_dir)["metrics"] if "train_loss" in line]


def losses(run_dir) -> dict[int, float]:
    return {line["step"]: line["train_loss"] for line in read_run(run_dir)["metrics"] if "train_loss" in line}


def logged_steps(runs) -> int:
    """The training steps the run in ``runs`` has logged so far (0 before its record exists)."""
    files = list(runs.glob("*/metrics.jsonl"))
    return sum('"train_loss"' in line for line in files[0].read_text().splitlines()) if files else 0


def recurrent_translation_args(data_dir) -> list[str]:
    """A recurrent encoder-decoder that feeds its own tokens back half of the time (teacher forcing 0.5): its
    random draws go on where Ctrl-C stopped them too."""
    from tests.cli.test_recurrent import rnn_args

    return ["fit", *rnn_args(data_dir, "--model.teacher_forcing=0.5", "--model.rnn_attention=additive"), *FEW_STEPS]


@pytest.mark.slow  # a fresh process as users start it, and two runs to compare with
@pytest.mark.parametrize("network", ["transformer", "recurrent"])
def test_ctrl_c_saves_the_step_it_ends_and_resume_continues_exactly(network, data_dir, cli_env, zoo_cache):
    start = shakespeare_args(data_dir) if network == "transformer" else recurrent_translation_args(data_dir)
    args = [*start, *RUN, "--trainer.max_steps=5000"]
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache), "PYTHONPATH": str(REPO)}
    env["OMP_NUM_THREADS"] = str(torch.get_num_threads())  # this process's, which resumes it: the same sums
    env.pop("ZOO_RUN_DIR", None)
    env.pop("WANDB_SERVICE", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "zoo", *args],
        cwd=cli_env,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not ignored, as under `nohup`
    )
    deadline = time.monotonic() + 300
    while logged_steps(cli_env / "runs") < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # polling the run's record, not a wait for it
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 128 + signal.SIGINT, err[-3000:]
    (run_dir,) = (cli_env / "runs").iterdir()
    done = train_steps(run_dir)
    saved = torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=False)["global_step"]
    assert done == list(range(saved)) and 3 <= saved < 400  # every step done, and no validation saved it
    assert read_run(run_dir)["summary"]["status"] == "interrupted"
    (line,) = [line for line in err.splitlines() if line.startswith("zoo: run interrupted")]
    relative = f"runs/{run_dir.name}"
    assert line == (
        f"zoo: run interrupted at step {saved}; {relative}/checkpoints/last.ckpt holds step {saved}; resume it "
        f"with: python -m zoo fit --config {relative}/config.yaml --ckpt_path last"
    )
    end = f"--trainer.max_steps={saved + 3}"
    main([*shlex.split(line.split("resume it with: ")[1])[3:], end])
    main([*args, end, "--runs_dir=uninterrupted"])
    (uninterrupted,) = (cli_env / "uninterrupted").iterdir()
    assert train_steps(run_dir) == list(range(saved + 3))
    assert losses(run_dir) == losses(uninterrupted)
    assert read_run(run_dir)["summary"]["status"] == "finished"


def test_ctrl_c_before_the_first_step_leaves_no_folder_and_no_dash_2(
    data_dir, cli_env, monkeypatch, capsys, ctrl_c_reaches_this_process
):
    """Ctrl-C while the data was set up left the folder with the record of a run that trained nothing: the
    next run of the configuration went silently to ``-2``."""
    from zoo.data import ZooDataModule

    setup = ZooDataModule.setup

    def interrupted(self, stage=None):
        setup(self, stage)
        raise KeyboardInterrupt

    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2"]
    with monkeypatch.context() as patch:
        patch.setattr(ZooDataModule, "setup", interrupted)
        with pytest.raises(SystemExit) as stopped:
            main(args)
    assert stopped.value.code == 128 + signal.SIGINT
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C stops this process again
    assert not (cli_env / "runs").exists()
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("zoo: run interrupted before its first step; its folder runs/")
    main(args)
    (run_dir,) = (cli_env / "runs").iterdir()
    assert not run_dir.name.endswith("-2")


def test_a_taken_run_name_is_said(data_dir, cli_env, capsys):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=1", "--trainer.val_check_interval=1"]
    main(args)
    capsys.readouterr()
    main(args)
    (first, _) = sorted((cli_env / "runs").iterdir())
    assert f"zoo: runs/{first.name} holds a finished run of this configuration; this one is runs/{first.name}-2\n" in (
        capsys.readouterr().out
    )
    assert json.loads((first / "summary.json").read_text())["status"] == "finished"
