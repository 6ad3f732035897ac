"""Every shipped sweep file: a valid W&B sweep whose parameters are fields of the CLI, whose values the CLI and
the component registries accept, and whose ``--dry-run`` lists the whole grid."""

import math
import re

import pytest
import yaml

from tests.conftest import REPO
from zoo.nn.norm import NORMS
from zoo.nn.positional import POSITIONAL_ENCODINGS
from zoo.sweep import main
from zoo.sweep.spec import load_sweep

SWEEPS = sorted((REPO / "sweeps").glob("*.yaml"))
REGISTRIES = {"model.norm": NORMS, "model.pe": POSITIONAL_ENCODINGS}
DATA = {"do": "tinyshakespeare", "eo": "sst2", "ed": "multi30k"}
AXES = {"pe": "model.pe", "norm": "model.norm", "position": "model.norm_position", "heads": "model.n_heads"}


def test_every_variant_has_a_sweep_per_axis_and_a_grid():
    names = {path.stem for path in SWEEPS}
    expected = {f"{variant}-{axis}" for variant in ("do", "eo", "ed") for axis in [*AXES, "grid"]}
    assert expected <= names, sorted(expected - names)


@pytest.mark.parametrize("path", SWEEPS, ids=[path.stem for path in SWEEPS])
def test_sweep_file_is_valid_and_dry_run_lists_the_grid(path, capsys, monkeypatch, tmp_path, data_dir):
    monkeypatch.chdir(REPO)  # the configs named in the commands are relative to the repository
    config = load_sweep(path)
    assert config["name"] == path.stem
    assert config["parameters"]["seed_everything"]["values"] == [1, 2, 3]
    assert "${args}" in config["command"] and config["method"] == "grid"
    for key, registry in REGISTRIES.items():
        for value in config["parameters"].get(key, {}).get("values", []):
            assert value in registry.names(), f"{path.name}: {key}={value} is not registered"
    data = data_dir / DATA[path.stem.split("-")[0]]  # the hub id is refused offline, before any trial
    assert main([str(path), "--dry-run", "--runs_dir", str(tmp_path), "--", f"--data.path={data}"]) == 0
    out = capsys.readouterr().out
    listed = re.findall(r"^\s+\d+ (\S+)  \(to run\)$", out, flags=re.MULTILINE)
    commands = re.findall(r"^ {7}(\S.*)$", out, flags=re.MULTILINE)  # as the runner starts them
    assert len(commands) == len(listed) and all(c.endswith(f"--runs_dir={tmp_path}") for c in commands)
    expected = math.prod(len(spec["values"]) if "values" in spec else 1 for spec in config["parameters"].values())
    assert len(listed) == len(set(listed)) == expected
    assert all(name.startswith(f"{config['name']}-") and re.search(r"-s[123]$", name) for name in listed)


@pytest.mark.parametrize("path", [p for p in SWEEPS if p.stem.split("-")[1] in AXES], ids=lambda p: p.stem)
def test_axis_sweep_varies_its_axis_only(path):
    config = yaml.safe_load(path.read_text())
    assert set(config["parameters"]) == {AXES[path.stem.split("-")[1]], "seed_everything"}


KNOWN = sorted((REPO / "sweeps" / "known").glob("*.yaml"))  # the calibration sweeps of docs/known-effects.md


@pytest.mark.parametrize("path", KNOWN, ids=[path.stem for path in KNOWN])
def test_known_effect_sweep_is_valid_and_dry_run_lists_its_trials(path, capsys, monkeypatch, tmp_path, data_dir):
    monkeypatch.chdir(REPO)
    config = load_sweep(path)
    assert config["name"] == f"known-{path.stem}"  # never the group of an ablation sweep (ed-pe, ...)
    seeds = config["parameters"]["seed_everything"]["values"]
    assert seeds == list(range(1, len(seeds) + 1)) and len(seeds) >= (12 if path.stem.startswith("aa-") else 3)
    assert "configs/encoder_decoder/ablation.yaml" in config["command"] and config["method"] == "grid"
    data = f"--data.path={data_dir / 'multi30k'}"
    assert main([str(path), "--dry-run", "--runs_dir", str(tmp_path), "--", data]) == 0
    listed = re.findall(r"^\s+\d+ (\S+)  \(to run\)$", capsys.readouterr().out, flags=re.MULTILINE)
    expected = math.prod(len(spec.get("values", [None])) for spec in config["parameters"].values())
    assert len(listed) == len(set(listed)) == expected
    # seeds 1-3 of the A/A sweep are the baseline of the others: their trials are named to be picked by a glob
    assert all(re.fullmatch(rf"{config['name']}(-\w+)?-s\d+", name) for name in listed)


def test_known_effect_sweeps_cover_the_calibration():
    assert {path.stem for path in KNOWN} == {
        "aa-ed", "ed-heads", "ed-layers", "ed-d_model", "ed-pe", "ed-postnorm", "ed-swiglu"
    }  # fmt: skip
