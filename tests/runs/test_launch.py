"""The rank logic of a launch that starts every rank: rank 0 resolves the run folder, the others are told it
through torchrun's agent store (a real TCPStore here) or, under ``srun`` and other launchers, a file store under
runs_dir, whichever rank asks first."""

import os
import socket
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from lightning.fabric.plugins.environments import (
    LightningEnvironment,
    LSFEnvironment,
    MPIEnvironment,
    TorchElasticEnvironment,
)
from torch.distributed import TCPStore

from tests.conftest import REPO
from zoo.runs import launch
from zoo.runs.launch import RankZeroFailed, launch_ranks, shared_run_dir
from zoo.runs.wandb_logger import make_wandb_logger

LAUNCH_VARIABLES = [
    *(name for rank, size, _, names in launch.RANK_VARIABLES for name in (rank, size, *names)),
    *(name for _, names in launch.LAUNCH_NAMES.values() for name in names),
    *("SLURM_NTASKS", "SLURM_NTASKS_PER_NODE", "SLURM_JOB_NAME", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID"),
    *("TORCHELASTIC_RUN_ID", "LOCAL_RANK", "NODE_RANK", "GROUP_RANK", "LSB_DJOB_RANKFILE"),
    *("JSM_NAMESPACE_LOCAL_RANK", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_RANK"),
]
SLURM = {
    "SLURM_PROCID": "0",
    "SLURM_NTASKS": "2",
    "SLURM_NTASKS_PER_NODE": "2",
    "SLURM_LOCALID": "0",
    "SLURM_JOB_ID": "77",
    "SLURM_STEP_ID": "0",
}


def launched(monkeypatch, environment: dict) -> None:
    """This process's environment as one rank of a launch: ``environment`` and no other launcher's variables."""
    for name in [*LAUNCH_VARIABLES, "TORCHELASTIC_USE_AGENT_STORE"]:
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def agent_store(monkeypatch):
    """The store a torchrun agent serves its two ranks, and their environment (as rank 0)."""
    store = TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=30))
    launched(
        monkeypatch,
        {
            "TORCHELASTIC_USE_AGENT_STORE": "True",
            "WORLD_SIZE": "2",
            "RANK": "0",
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(store.port),
            "TORCHELASTIC_RESTART_COUNT": "0",
        },
    )
    return store


@pytest.fixture(params=["torchrun", "srun"])
def rank_variable(request, monkeypatch):
    """Rank 0 of a two-rank launch by torchrun (its agent's store) or srun (a file store); the rank's variable."""
    if request.param == "torchrun":
        request.getfixturevalue("agent_store")
        return "RANK"
    launched(monkeypatch, SLURM)
    return "SLURM_PROCID"


RANK_ONE = """
import os, sys
from torch.distributed import TCPStore
from tests.conftest import REPO
from zoo.runs.launch import shared_run_dir
TCPStore("127.0.0.1", int(os.environ["MASTER_PORT"]), is_master=False).set("test/rank 1 started", "yes")
print(shared_run_dir(lambda: sys.exit("rank 1 resolved a folder"), REPO / "runs"))
"""


def test_rank_zero_resolves_the_folder_and_a_rank_that_asks_first_waits_for_it(agent_store, tmp_path):
    rank_one = subprocess.Popen(
        [sys.executable, "-c", RANK_ONE],
        env={**os.environ, "RANK": "1", "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )
    agent_store.wait(["test/rank 1 started"])
    assert shared_run_dir(lambda: tmp_path / "run", tmp_path) == (tmp_path / "run", False)
    assert rank_one.communicate(timeout=60)[0].strip() == repr((tmp_path / "run", True))
    assert rank_one.returncode == 0


def test_a_command_without_a_folder_is_told_as_none(rank_variable, monkeypatch, tmp_path):
    assert shared_run_dir(lambda: None, tmp_path) == (None, False)
    monkeypatch.setenv(rank_variable, "1")
    assert shared_run_dir(lambda: pytest.fail("rank 1 resolved"), tmp_path) == (None, True)


def test_when_rank_zero_fails_the_other_ranks_stop_too(rank_variable, monkeypatch, tmp_path):
    def refused():
        raise ValueError("runs_dir is a file")

    with pytest.raises(ValueError, match="runs_dir is a file"):
        shared_run_dir(refused, tmp_path)
    monkeypatch.setenv(rank_variable, "1")
    with pytest.raises(RankZeroFailed, match=r"^rank 1: rank 0 stopped before the run started"):
        shared_run_dir(refused, tmp_path)


SRUN_RANK_ONE = """
import sys
from pathlib import Path
from zoo.runs.launch import shared_run_dir
Path(sys.argv[1], "rank 1 started").touch()
print(shared_run_dir(lambda: sys.exit("rank 1 resolved a folder"), Path(sys.argv[1])))
"""


@pytest.mark.parametrize("first", ["rank 0", "rank 1"])
def test_srun_ranks_share_rank_zeros_folder_through_runs_dir_whichever_starts_first(first, monkeypatch, tmp_path):
    """Each rank that srun started made its own folder: no torchrun agent told them rank 0's."""
    launched(monkeypatch, SLURM)

    def rank_one():
        return subprocess.Popen(
            [sys.executable, "-c", SRUN_RANK_ONE, str(tmp_path)],
            env={**os.environ, "SLURM_PROCID": "1", "SLURM_LOCALID": "1", "PYTHONPATH": str(REPO)},
            stdout=subprocess.PIPE,
            text=True,
        )

    if first == "rank 1":
        rank = rank_one()
        while not (tmp_path / "rank 1 started").exists():
            assert rank.poll() is None, "rank 1 stopped"
            time.sleep(0.05)
        time.sleep(0.5)  # rank 1 waits in the store
    assert shared_run_dir(lambda: tmp_path / "run", tmp_path) == (tmp_path / "run", False)
    if first == "rank 0":
        rank = rank_one()
    assert rank.communicate(timeout=60)[0].strip() == repr((tmp_path / "run", True))
    assert rank.returncode == 0
    assert list((tmp_path / ".launch").iterdir()) == []  # torch removes the store once both ranks are done


def test_a_rank_that_rank_zero_never_tells_stops_with_one_line(monkeypatch, tmp_path):
    launched(monkeypatch, {**SLURM, "SLURM_PROCID": "1"})
    monkeypatch.setattr(launch, "WAIT", timedelta(milliseconds=200))
    with pytest.raises(RankZeroFailed, match=r"^rank 1: rank 0 told no run folder within 0.2 s$"):
        shared_run_dir(lambda: pytest.fail("rank 1 resolved"), tmp_path)


def test_each_launch_has_its_own_store_and_the_first_launcher_found_names_it(monkeypatch):
    launched(monkeypatch, {**SLURM, "SLURM_RESTART_COUNT": "2", "RANK": "5", "WORLD_SIZE": "2"})
    assert launch_ranks() == (0, 2, "slurm-77-0-2")  # a requeued job is a new launch
    launched(monkeypatch, {"RANK": "1", "WORLD_SIZE": "4", "MASTER_ADDR": "node/1", "MASTER_PORT": "29500"})
    assert launch_ranks() == (1, 4, "rank-node_1-29500")
    launched(monkeypatch, {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "PMIX_NAMESPACE": "prterun-h-1@1"})
    assert launch_ranks() == (3, 4, "ompi-prterun-h-1@1")
    launched(monkeypatch, {"TORCHELASTIC_USE_AGENT_STORE": "True", "RANK": "1", "WORLD_SIZE": "2"})
    assert launch_ranks() is None  # torchrun's agent store tells the folder


def test_torchrun_without_its_agent_store_is_lightnings_torchelastic_environment(monkeypatch):
    address = {"MASTER_ADDR": "host", "MASTER_PORT": "29500", "TORCHELASTIC_RESTART_COUNT": "1"}
    launched(monkeypatch, {"TORCHELASTIC_RUN_ID": "r1", "RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", **address})
    assert isinstance(launch.cluster_environment(), TorchElasticEnvironment)
    assert launch_ranks() == (1, 2, "rank-host-29500-1")  # a restart is a new launch


def test_mpich_and_intel_mpi_ranks_are_found_by_their_pmi_variables(monkeypatch):
    """``mpirun`` of MPICH (Hydra) and Intel MPI sets ``PMI_RANK`` and ``PMI_SIZE``; the table before Lightning's
    environments missed them, and each rank made its own folder."""
    launched(monkeypatch, {"PMI_RANK": "2", "PMI_SIZE": "4", "MASTER_ADDR": "host", "MASTER_PORT": "29500"})
    assert launch_ranks() == (2, 4, "pmi-host-29500")


def test_with_mpi4py_lightnings_mpi_environment_answers(monkeypatch):
    """``MPIEnvironment`` asks MPI itself, through ``mpi4py`` (not installed here: its answers are stood in)."""
    launched(monkeypatch, {"PMIX_NAMESPACE": "prterun-h-1@1"})
    monkeypatch.setattr(MPIEnvironment, "detect", staticmethod(lambda: True))
    monkeypatch.setattr(MPIEnvironment, "__init__", lambda self: None)
    monkeypatch.setattr(MPIEnvironment, "world_size", lambda self: 8)
    monkeypatch.setattr(MPIEnvironment, "global_rank", lambda self: 5)
    assert launch_ranks() == (5, 8, "mpi-prterun-h-1@1")


def test_lsf_jsrun_ranks_are_lightnings_lsf_environment(monkeypatch, tmp_path):
    (tmp_path / "rankfile").write_text(f"batch\n{socket.gethostname()}\nnode2\n")  # the batch host, then ranks
    launched(
        monkeypatch,
        {
            "LSB_JOBID": "4242",
            "LSB_DJOB_RANKFILE": str(tmp_path / "rankfile"),
            "JSM_NAMESPACE_LOCAL_RANK": "1",
            "JSM_NAMESPACE_SIZE": "4",
            "JSM_NAMESPACE_RANK": "3",
        },
    )
    assert isinstance(launch.cluster_environment(), LSFEnvironment)
    assert launch_ranks() == (3, 4, "lsf-4242")


def test_lightnings_own_launcher_on_several_nodes_shares_node_zeros_folder(monkeypatch):
    """``trainer.num_nodes=2``, ``python -m zoo fit`` started on each node with ``NODE_RANK``: the first process of
    each node runs the command (its children inherit its folder), and only node 0's resolves it."""
    launched(monkeypatch, {"NODE_RANK": "1", "MASTER_ADDR": "node0", "MASTER_PORT": "29500"})
    assert isinstance(launch.cluster_environment(), LightningEnvironment)
    assert launch_ranks(num_nodes=2) == (1, 2, "node-node0-29500")
    assert launch_ranks(num_nodes=1) is None  # one node: Lightning's launcher starts every rank here
    monkeypatch.setenv("LOCAL_RANK", "1")  # a rank that Lightning's launcher started: it inherits the folder
    assert launch_ranks(num_nodes=2) is None


def test_lightnings_refusal_of_srun_settings_is_one_line(monkeypatch, tmp_path):
    launched(monkeypatch, {key: value for key, value in SLURM.items() if key != "SLURM_NTASKS_PER_NODE"})
    with pytest.raises(RankZeroFailed, match=r"^SLURMEnvironment: You set `--ntasks=2` in your SLURM bash script"):
        shared_run_dir(lambda: tmp_path, tmp_path)


def test_alone_or_under_lightnings_launcher_the_folder_is_resolved_here(monkeypatch, tmp_path):
    launched(monkeypatch, {"RANK": "1", "SLURM_PROCID": "1", "SLURM_NTASKS": "1"})
    assert shared_run_dir(lambda: tmp_path, tmp_path) == (tmp_path, False)


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
