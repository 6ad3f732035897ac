"""``--model.pe=alibi`` and ``--model.pe=t5`` train each variant from the command line on real data, and, having
no position table, accept sequences longer than ``model.max_len``."""

import math

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, VARIANTS, read_run
from zoo.cli import main

STEPS = [
    "--trainer.max_steps=3",
    "--trainer.val_check_interval=3",
    "--trainer.limit_val_batches=1",
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--trainer.enable_checkpointing=false",
]


@pytest.mark.parametrize("pe", ["alibi", "t5"])
@pytest.mark.parametrize("variant", ["encoder_decoder", "encoder_only", "decoder_only"])
def test_bias_encodings_train_every_variant(variant, pe, data_dir, cli_env):
    config, data_name, extra, task_metric = VARIANTS[variant]
    shorter = ["--model.max_len=16"] if variant == "decoder_only" else []  # its blocks have 64 tokens
    data = f"--data.path={data_dir / data_name}"
    main(["fit", "--config", str(CONFIGS / config), data, *TINY_MODEL, *extra, *STEPS, f"--model.pe={pe}", *shorter])
    (run_dir,) = (cli_env / "runs").iterdir()
    assert f"-{pe}-layernorm-pre-h2-" in run_dir.name
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "finished" and math.isfinite(summary["final"]["val_loss"])
    assert task_metric in summary["final"]
