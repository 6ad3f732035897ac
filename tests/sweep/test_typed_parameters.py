"""A sweep whose ``command`` puts ``${args}`` before ``--config`` (``fit ${args} --config X``, a natural order) is
refused before any trial: the command line is read left to right, and every trial would have trained the
config's value, an ablation of identical runs under two names (a ``wandb agent`` restart, the whole logged config
replaced)."""

import pytest
import yaml

from tests.cli.helpers import CONFIGS
from zoo.sweep.main import main as sweep_main


@pytest.mark.parametrize("macro", ["${args}", "${args_no_equals}"])
def test_args_before_the_config_are_refused_in_one_line_before_any_trial(macro, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    command = ["${env}", "${interpreter}", "-m", "zoo", "fit", macro, "--config"]
    sweep = {
        "name": "order",
        "command": [*command, str(CONFIGS / "decoder_only" / "tinyshakespeare.yaml"), "--trainer.max_steps=2"],
        "method": "grid",
        "metric": {"name": "val_loss", "goal": "minimize"},
        "parameters": {"model.pe": {"values": ["sinusoidal", "rope"]}},
    }
    (tmp_path / "order.yaml").write_text(yaml.safe_dump(sweep, sort_keys=False))
    capsys.readouterr()
    assert sweep_main(["order.yaml", "--dry-run"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"zoo sweep: error: command: {macro} stands before '--config', whose file would replace each "
        f"trial's parameters (a command line is read left to right); put {macro} after the --config"
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["order.yaml"]
