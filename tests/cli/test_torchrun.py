"""Two ranks started by torchrun (CPU, gloo): one launch is one run folder, whichever rank starts first."""

import os
import subprocess
import sys

import pytest

from tests.cli.helpers import CONFIGS
from tests.conftest import REPO


@pytest.mark.slow
def test_a_torchrun_launch_makes_one_run_folder(zoo_cache, tmp_path):
    """Each rank made its own folder: the run's, and ``name-2`` holding nothing but a ``wandb_id``."""
    runs = tmp_path / "runs"
    args = [
        *(sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"),
        *("-m", "zoo", "fit", "--config", str(CONFIGS / "quickstart.yaml"), f"--runs_dir={runs}"),
        *("--data.num_train=200", "--model.num_encoder_layers=1", "--model.num_decoder_layers=1"),
        *("--trainer.accelerator=cpu", "--trainer.devices=2", "--trainer.strategy=ddp", "--trainer.max_steps=2"),
        *("--trainer.val_check_interval=2", "--trainer.limit_val_batches=1", "--trainer.enable_progress_bar=false"),
    ]
    env = {**os.environ, "WANDB_MODE": "offline", "ZOO_CACHE": str(zoo_cache), "OMP_NUM_THREADS": "1"}
    env.pop("ZOO_RUN_DIR", None)
    result = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    assert {path.name for path in run_dir.iterdir()} >= {"config.yaml", "summary.json", "checkpoints", "wandb_id"}
    (offline,) = (run_dir / "wandb").glob("offline-run-*")
    assert offline.name.endswith("-" + (run_dir / "wandb_id").read_text())  # rank 0's id, not another rank's
