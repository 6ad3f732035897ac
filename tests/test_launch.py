"""The rank logic of a torchrun launch: rank 0 resolves the run folder, the others are told it through the
agent's store (a real TCPStore here), whichever rank asks first."""

import os
import subprocess
import sys
from datetime import timedelta

import pytest
from torch.distributed import TCPStore

from tests.conftest import REPO
from zoo.launch import RankZeroFailed, shared_run_dir
from zoo.tracking import make_wandb_logger


@pytest.fixture
def agent_store(monkeypatch):
    """The store a torchrun agent serves its two ranks, and their environment (as rank 0)."""
    store = TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=30))
    for name, value in {
        "TORCHELASTIC_USE_AGENT_STORE": "True",
        "WORLD_SIZE": "2",
        "RANK": "0",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(store.port),
        "TORCHELASTIC_RESTART_COUNT": "0",
    }.items():
        monkeypatch.setenv(name, value)
    return store


RANK_ONE = """
import os, sys
from torch.distributed import TCPStore
from tests.conftest import REPO
from zoo.launch import shared_run_dir
TCPStore("127.0.0.1", int(os.environ["MASTER_PORT"]), is_master=False).set("test/rank 1 started", "yes")
print(shared_run_dir(lambda: sys.exit("rank 1 resolved a folder")))
"""


def test_rank_zero_resolves_the_folder_and_a_rank_that_asks_first_waits_for_it(agent_store, tmp_path):
    rank_one = subprocess.Popen(
        [sys.executable, "-c", RANK_ONE],
        env={**os.environ, "RANK": "1", "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    agent_store.wait(["test/rank 1 started"])
    assert shared_run_dir(lambda: tmp_path / "run") == (tmp_path / "run", False)
    assert rank_one.communicate(timeout=60)[0].strip() == repr((tmp_path / "run", True))
    assert rank_one.returncode == 0


def test_a_command_without_a_folder_is_told_as_none(agent_store, monkeypatch):
    assert shared_run_dir(lambda: None) == (None, False)
    monkeypatch.setenv("RANK", "1")
    assert shared_run_dir(lambda: pytest.fail("rank 1 resolved")) == (None, True)


def test_when_rank_zero_fails_the_other_ranks_stop_too(agent_store, monkeypatch):
    def refused():
        raise ValueError("runs_dir is a file")

    with pytest.raises(ValueError, match="runs_dir is a file"):
        shared_run_dir(refused)
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(RankZeroFailed, match=r"^rank 1: rank 0 stopped before the run started"):
        shared_run_dir(refused)


def test_alone_or_under_lightnings_launcher_the_folder_is_resolved_here(monkeypatch, tmp_path):
    monkeypatch.delenv("TORCHELASTIC_USE_AGENT_STORE", raising=False)
    monkeypatch.setenv("RANK", "1")
    assert shared_run_dir(lambda: tmp_path) == (tmp_path, False)


def test_only_rank_zero_keeps_the_wandb_id(monkeypatch, tmp_path):
    """Rank 1's logger wrote its own id into the folder it made (or over rank 0's, in one shared folder)."""
    from lightning.pytorch.utilities import rank_zero_only

    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setattr(rank_zero_only, "rank", 1)
    make_wandb_logger(tmp_path, "run", "zoo")
    assert not (tmp_path / "wandb_id").exists()
    monkeypatch.setattr(rank_zero_only, "rank", 0)
    make_wandb_logger(tmp_path, "run", "zoo")
    assert len((tmp_path / "wandb_id").read_text()) == 8
