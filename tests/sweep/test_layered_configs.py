"""A ``config`` parameter lays a file per trial over the command's base config (``--config`` is read in turn, each
file over the ones before): the systems of ``sweeps/ed-architecture.yaml``, which differ in several knobs at once."""

import re

import pytest
import yaml

from tests.conftest import REPO
from tests.sweep.test_sweep_errors import SHAKESPEARE, run_sweep, write_sweep  # noqa: F401 (a fixture)
from zoo.runs.record import flatten
from zoo.sweep import main
from zoo.sweep.validate import cli_parser, parse

OVERLAYS = {
    "wide": {"model": {"init_args": {"d_model": 48, "n_heads": 4}}},
    "rnn": {"model": {"init_args": {"architecture": "rnn", "rnn_cell": "gru", "num_layers": 1}}},
}


def _overlays(folder) -> list[str]:
    paths = []
    for name, body in OVERLAYS.items():
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(body))
        paths.append(str(path))
    return paths


def test_a_config_parameter_is_laid_over_the_base_config(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    overlays = _overlays(tmp_path)
    sweep = write_sweep(tmp_path, name="layers", parameters={"config": {"values": overlays}})
    assert main([sweep, "--dry-run", "--runs_dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^\s+\d+ (\S+)  \(to run\)$", out, flags=re.MULTILINE) == ["layers-wide", "layers-rnn"]
    commands = re.findall(r"^ {7}(\S.*)$", out, flags=re.MULTILINE)
    for command, overlay in zip(commands, overlays, strict=True):
        assert f"--config {SHAKESPEARE} --data.path=. --config={overlay} " in command
    for overlay, body in zip(overlays, OVERLAYS.values(), strict=True):
        resolved = flatten(parse(cli_parser(), ["fit", "--config", SHAKESPEARE, f"--config={overlay}"]).as_dict())
        base = flatten(parse(cli_parser(), ["fit", "--config", SHAKESPEARE]).as_dict())
        laid = {f"model.{key}": value for key, value in body["model"]["init_args"].items()}
        assert {key: resolved[key] for key in laid} == laid  # the overlay's knobs win ...
        kept = {key for key in base if key.startswith(("model.", "data.", "trainer.")) and key not in laid}
        assert {key: resolved[key] for key in kept} == {key: base[key] for key in kept}  # ... the rest is the base's


def test_a_config_parameter_naming_no_file_is_one_line_before_any_trial(run_sweep, tmp_path):  # noqa: F811
    message = run_sweep(parameters={"config": {"values": [str(tmp_path / "nope.yaml"), SHAKESPEARE]}})
    assert "nope.yaml" in message and "config" in message


@pytest.mark.parametrize("system", sorted((REPO / "configs" / "encoder_decoder" / "recurrent").glob("*.yaml")),
                         ids=lambda path: path.stem)  # fmt: skip
def test_the_shipped_systems_lay_their_knobs_over_the_ablation_preset(system):
    base = str(REPO / "configs" / "encoder_decoder" / "ablation.yaml")
    resolved = flatten(parse(cli_parser(), ["fit", "--config", base, f"--config={system}"]).as_dict())
    preset = flatten(parse(cli_parser(), ["fit", "--config", base]).as_dict())
    own = flatten(yaml.safe_load(system.read_text()))
    laid = {key.replace(".init_args.", "."): value for key, value in own.items()}
    assert {key: resolved[key] for key in laid} == laid
    same = ("model.d_model", "model.dropout", "model.lr", "model.warmup_steps", "data.vocab_size", "trainer.max_steps")
    same = [key for key in same if key not in laid]  # the budget, data and optimiser: every system's the preset's
    assert {key: resolved[key] for key in same} == {key: preset[key] for key in same}
    assert {"model.dropout", "model.lr", "data.vocab_size", "trainer.max_steps"} <= set(same)
