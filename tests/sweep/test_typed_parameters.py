"""A sweep's parameters reach each trial wherever ``${args}`` stands in its ``command``: one written as
``fit ${args} --config X`` (a natural order) passed the sweep's checks and ``--dry-run`` listed its trials, but
every trial trained the config's value: an ablation of identical runs under two names."""

import json

import yaml

from tests.cli.helpers import CONFIGS, FEW_STEPS, TINY_MODEL
from zoo.sweep.main import main as sweep_main

PES = ["sinusoidal", "rope"]  # the config's own is learned


def test_args_before_the_config_reach_every_trial(tmp_path, data_dir, zoo_cache, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZOO_CACHE", str(zoo_cache))
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.delenv("ZOO_RUN_DIR", raising=False)
    command = ["${env}", "${interpreter}", "-m", "zoo", "fit", "${args}", "--config"]
    sweep = {
        "name": "order",
        "command": [*command, str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"), "--trainer.max_steps=2"],
        "method": "grid",
        "metric": {"name": "val_loss", "goal": "minimize"},
        "parameters": {"model.pe": {"values": PES}},
    }
    (tmp_path / "order.yaml").write_text(yaml.safe_dump(sweep, sort_keys=False))
    steps = [argument for argument in FEW_STEPS if not argument.startswith("--trainer.max_steps")]
    extra = [f"--data.path={data_dir / 'tinyshakespeare'}", *TINY_MODEL, "--model.num_layers=1", *steps]
    assert sweep_main(["order.yaml", "--threads", "1", "--", *extra]) == 0, capsys.readouterr()
    trained = {}
    for pe in PES:
        config = json.loads((tmp_path / "runs" / f"order-{pe}" / "config.json").read_text())
        trained[pe] = config["model.pe"]
    assert trained == {pe: pe for pe in PES}
