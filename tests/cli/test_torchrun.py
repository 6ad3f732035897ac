"""Two ranks started by torchrun, or by srun (faked: its environment), on CPU with gloo: one launch is one run
folder, whichever rank starts first."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import CONFIGS
from tests.conftest import REPO

SRUN = {"SLURM_NTASKS": "2", "SLURM_NTASKS_PER_NODE": "2", "SLURM_NNODES": "1", "SLURM_NODEID": "0"}
SRUN |= {"SLURM_NODELIST": "localhost", "SLURM_JOB_NAME": "zoo", "SLURM_JOB_ID": "4711", "SLURM_STEP_ID": "0"}


def fit_command(runs: Path) -> list[str]:
    """A two-rank ``fit`` of a tiny quickstart model, two steps."""
    return [
        *("-m", "zoo", "fit", "--config", str(CONFIGS / "quickstart.yaml"), f"--runs_dir={runs}"),
        *("--data.num_train=200", "--model.num_encoder_layers=1", "--model.num_decoder_layers=1"),
        *("--trainer.accelerator=cpu", "--trainer.devices=2", "--trainer.strategy=ddp", "--trainer.max_steps=2"),
        *("--trainer.val_check_interval=2", "--trainer.limit_val_batches=1", "--trainer.enable_progress_bar=false"),
    ]


def launch_env(zoo_cache: Path) -> dict:
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache), "OMP_NUM_THREADS": "1"}
    for name in ["ZOO_RUN_DIR", *(name for name in env if name.startswith("SLURM_"))]:
        env.pop(name, None)
    return env


def assert_one_run_folder(runs: Path) -> None:
    """Each rank made its own folder: the run's, and ``name-2`` holding nothing but a ``wandb_id``."""
    (run_dir,) = (path for path in runs.iterdir() if path.name != ".launch")
    assert {path.name for path in run_dir.iterdir()} >= {"config.yaml", "summary.json", "checkpoints", "wandb_id"}
    (offline,) = (run_dir / "wandb").glob("offline-run-*")
    assert offline.name.endswith("-" + (run_dir / "wandb_id").read_text())  # rank 0's id, not another rank's


@pytest.mark.slow
def test_a_torchrun_launch_makes_one_run_folder(zoo_cache, tmp_path):
    runs = tmp_path / "runs"
    args = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", *fit_command(runs)]
    result = subprocess.run(args, cwd=REPO, env=launch_env(zoo_cache), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_one_run_folder(runs)


@pytest.mark.slow
def test_an_srun_launch_makes_one_run_folder(zoo_cache, tmp_path):
    """Lightning's SLURMEnvironment takes the ranks from srun's variables; rank 1 starts first here."""
    runs, env, logs = tmp_path / "runs", launch_env(zoo_cache), [tmp_path / f"rank{rank}.log" for rank in (0, 1)]
    ranks = [
        subprocess.Popen(
            [sys.executable, *fit_command(runs)],
            cwd=REPO,
            env={**env, **SRUN, "SLURM_PROCID": str(rank), "SLURM_LOCALID": str(rank)},
            stdout=subprocess.DEVNULL,
            stderr=logs[rank].open("w"),
        )
        for rank in (1, 0)
    ]
    for rank, log in zip(ranks, logs[::-1], strict=True):
        assert rank.wait(timeout=600) == 0, log.read_text()[-3000:]
    assert_one_run_folder(runs)
    assert list((runs / ".launch").iterdir()) == []
