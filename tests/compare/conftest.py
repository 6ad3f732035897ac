"""Fake run folders with known metrics, and a way to call ``zoo compare`` in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compare.fake_runs import write_run
from zoo.compare import main

# Two configurations x three seeds of the Multi30k task (val_bleu): best and final value, tokens/s, wall time.
SINUSOIDAL = [(30.0, 29.5, (1000.0, 3000.0), 60.0), (31.0, 30.5, (2000.0, 4000.0), 70.0),
              (32.5, 32.0, (3000.0, 5000.0), 80.0)]  # fmt: skip
ROPE = [(33.0, 33.0, (1000.0, 1000.0), 50.0), (34.0, 33.5, (1000.0, 1000.0), 50.0),
        (36.0, 35.0, (1000.0, 1000.0), 50.0)]  # fmt: skip


def write_config(runs_dir: Path, pe: str, seeds: list, group: str | None = "pe-sweep", **knobs) -> list[Path]:
    """One run per seed; its curve peaks at ``best`` at step 200 and ends at ``final`` at step 300."""
    return [
        write_run(runs_dir, f"ed-{pe}-s{seed}", [(100, best - 5.0), (200, best), (300, final)], seed=seed,
                  knobs={"model.pe": pe, **knobs}, group=group, tokens_per_sec=tokens, wall_time_s=wall)
        for seed, (best, final, tokens, wall) in enumerate(seeds, start=1)
    ]  # fmt: skip


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    """``runs/`` with sinusoidal and RoPE, three seeds each, in sweep ``pe-sweep``."""
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE)
    return runs


@pytest.fixture
def compare(capsys, monkeypatch):
    """``compare(*args) -> (exit status, stdout, stderr)``, through ``zoo.compare.main``, on a terminal 220
    columns wide (the width is the terminal's, and a test worker's is 80)."""
    monkeypatch.setenv("COLUMNS", "220")

    def call(*args) -> tuple[int, str, str]:
        status = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err

    return call


@pytest.fixture
def compare_json(compare):
    """``compare_json(*args) -> dict``: the ``--format json`` output, after checking the exit status."""

    def call(*args) -> dict:
        status, out, err = compare(*args, "--format", "json")
        assert status == 0, err
        return json.loads(out)

    return call
