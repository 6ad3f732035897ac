"""Briefly trained checkpoints of the real data, trained once per session: a Multi30k encoder-decoder (with
its last two validation checkpoints kept) and a Tiny Shakespeare language model."""

import json

import pytest

from tests.cli.helpers import CONFIGS, TINY_MODEL, VARIANTS
from zoo.cli.main import main

STEPS = [
    "--trainer.max_steps=10",
    "--trainer.val_check_interval=5",
    "--trainer.limit_val_batches=1",
    "--trainer.enable_progress_bar=false",
    "--trainer.enable_model_summary=false",
    "--keep_last=2",
]


def _fit(variant: str, data_dir, zoo_cache, folder) -> dict:
    config, data_name, extra, _ = VARIANTS[variant]
    args = ["fit", "--config", str(CONFIGS / config), f"--data.path={data_dir / data_name}", *TINY_MODEL, *extra]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WANDB_MODE", "offline")
        patch.setenv("ZOO_CACHE", str(zoo_cache))
        patch.delenv("ZOO_RUN_DIR", raising=False)
        patch.chdir(folder)
        main([*args, *STEPS, "--runs_dir", str(folder / "runs")])
    (run_dir,) = (folder / "runs").iterdir()
    return json.loads((run_dir / "summary.json").read_text())["checkpoints"]


@pytest.fixture(scope="session")
def translation_checkpoints(data_dir, zoo_cache, tmp_path_factory) -> dict:
    """``summary.json``'s checkpoints of a 10-step Multi30k run: ``best``, ``last`` and ``kept`` (two)."""
    return _fit("encoder_decoder", data_dir, zoo_cache, tmp_path_factory.mktemp("translation"))


@pytest.fixture(scope="session")
def language_model_checkpoints(data_dir, zoo_cache, tmp_path_factory) -> dict:
    return _fit("decoder_only", data_dir, zoo_cache, tmp_path_factory.mktemp("language-model"))
