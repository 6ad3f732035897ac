"""One launch, one run folder: where a launcher starts every rank itself (``torchrun``, SLURM's ``srun``,
``mpirun``, LSF's ``jsrun``, or any that sets ``RANK`` and ``WORLD_SIZE``), or where ``trainer.num_nodes`` > 1
runs Lightning's own launcher on each node, each of those processes runs the whole command, and only the first
(global rank 0, or node 0) resolves the run folder; the others are told which it is.

Which launcher started this process, and its rank among how many, is what Lightning's cluster environments
answer (``lightning.fabric.plugins.environments``: ``SLURMEnvironment``, ``TorchElasticEnvironment``,
``LSFEnvironment``, ``MPIEnvironment``, in the order Lightning's trainer detects them, else
``LightningEnvironment``, whose ``node_rank`` is a node's under Lightning's own launcher). Kept here: the MPI
launchers' variables where ``mpi4py``, which ``MPIEnvironment`` needs, is not installed (Open MPI's
``OMPI_COMM_WORLD_RANK``, MPICH's and Intel MPI's ``PMI_RANK``), a bare ``RANK``/``WORLD_SIZE``, and the
variables that name one launch.

Such ranks do not inherit the folder from another, as the ranks of Lightning's own DDP launcher do on one node
(``ZOO_RUN_DIR``, :func:`zoo.training.session.inherited_run_dir`): each made its own, ``name`` and ``name-2``.
``torchrun``'s agent serves a key-value store to the ranks of the launch (``TORCHELASTIC_USE_AGENT_STORE``, at
``MASTER_ADDR:MASTER_PORT``, a new one for each launch and each restart), reachable from every node whether or
not they share a file system. Other launchers serve none, so the ranks meet in a file store
(``torch.distributed.FileStore``) at ``<runs_dir>/.launch/<launch>``, named by what the launcher gives each
launch (SLURM's job, step and restart count; LSF's job; Open MPI's job; else ``MASTER_ADDR:MASTER_PORT``): on
several nodes, ``runs_dir`` must be on a file system they share, as it is on clusters. Either way rank 0 puts
the folder there, and the others wait for it, whichever starts first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from lightning.fabric.plugins.environments import (
    ClusterEnvironment,
    LightningEnvironment,
    LSFEnvironment,
    MPIEnvironment,
    SLURMEnvironment,
    TorchElasticEnvironment,
)

NO_FOLDER, FAILED = "-", "!"  # what rank 0 tells: the command records nothing; it stopped before a folder
WAIT = timedelta(minutes=10)  # for rank 0 to resolve the folder: it loads no data before
# the order in which Lightning's trainer detects them (its accelerator connector); LightningEnvironment if none
ENVIRONMENTS = (SLURMEnvironment, TorchElasticEnvironment, LSFEnvironment, MPIEnvironment)
# what names one launch, for its file store (a requeued SLURM job, a restarted torchrun, is a new launch)
ADDRESS = ("MASTER_ADDR", "MASTER_PORT")
LAUNCH_NAMES = {
    SLURMEnvironment: ("slurm", ("SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_RESTART_COUNT")),
    TorchElasticEnvironment: ("rank", (*ADDRESS, "TORCHELASTIC_RESTART_COUNT")),
    LSFEnvironment: ("lsf", ("LSB_JOBID",)),
    MPIEnvironment: ("mpi", ("OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", *ADDRESS)),
}
# MPI launchers without mpi4py (which MPIEnvironment needs), and any launcher that sets torch's own variables:
# (rank, number of ranks, its name, what names one launch)
RANK_VARIABLES = (
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "ompi", ("OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE")),
    ("PMI_RANK", "PMI_SIZE", "pmi", ADDRESS),
    ("RANK", "WORLD_SIZE", "rank", ADDRESS),
)


class RankZeroFailed(RuntimeError):
    """Rank 0 stopped before it had a run folder (its own message says why), or did not tell it in time."""


def launched_by_torchrun() -> bool:
    """Whether this process is one of several ranks that a ``torchrun`` agent started, with its store."""
    return os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True" and int(os.environ.get("WORLD_SIZE", "1")) > 1


def cluster_environment() -> ClusterEnvironment:
    """The cluster environment Lightning's trainer will find this process in (the first that detects itself).

    Raises:
        RankZeroFailed: where Lightning refuses the launcher's settings (``srun --ntasks`` without
            ``--ntasks-per-node``), with its message.
    """
    for environment in ENVIRONMENTS:
        if environment.detect():
            try:
                return environment()
            except RuntimeError as error:
                raise RankZeroFailed(f"{environment.__name__}: {error}") from None
    return LightningEnvironment()


def _launch_name(prefix: str, names: tuple[str, ...]) -> str:
    return "-".join([prefix, *(os.environ[name] for name in names if name in os.environ)]).replace("/", "_")


def launch_ranks(num_nodes: int = 1) -> tuple[int, int, str] | None:
    """This process's global rank, the number of ranks and the name of the launch, where a launcher without an
    agent store started several (``None`` otherwise: alone, under ``torchrun``, or one of the ranks that
    Lightning's launcher started on one node). Under Lightning's own launcher on ``num_nodes`` nodes, the rank
    is the node's and the number the nodes'."""
    if launched_by_torchrun():
        return None
    environment = cluster_environment()
    if not isinstance(environment, LightningEnvironment):
        if environment.world_size() <= 1:
            return None
        return environment.global_rank(), environment.world_size(), _launch_name(*LAUNCH_NAMES[type(environment)])
    for rank, size, prefix, names in RANK_VARIABLES:
        if rank in os.environ and (ranks := int(os.environ.get(size, "1"))) > 1:
            return int(os.environ[rank]), ranks, _launch_name(prefix, names)
    if num_nodes > 1 and not environment.creates_processes_externally:
        return environment.node_rank(), num_nodes, _launch_name("node", ADDRESS)
    return None


def _agent_store():
    """A client of the torchrun agent's store, keyed under this launch attempt (a restart resolves the folder
    anew)."""
    from torch.distributed import PrefixStore, TCPStore

    client = TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False, timeout=WAIT)
    return PrefixStore(f"zoo/run_dir/attempt_{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", client)


def _file_store(runs_dir: Path, ranks: int, launch: str):
    """The launch's file store under ``runs_dir/.launch``; torch removes the file once all ``ranks`` are done."""
    from torch.distributed import FileStore

    (runs_dir / ".launch").mkdir(parents=True, exist_ok=True)
    store = FileStore(str(runs_dir / ".launch" / launch), ranks)
    store.set_timeout(WAIT)
    return store


def shared_run_dir(
    resolve: Callable[[], Path | None], runs_dir: Path, num_nodes: int = 1
) -> tuple[Path | None, bool]:
    """The launch's run folder: ``resolve()`` on global rank 0 (or alone), told to the other ranks through the
    torchrun agent's store or, under other launchers, a file store under ``runs_dir``; they wait for it.
    ``num_nodes``: the trainer's, for Lightning's own launcher on several nodes.

    Returns:
        The folder (``None`` for a command that records nothing), and whether another rank resolved it.

    Raises:
        RankZeroFailed: on the other ranks, when ``resolve()`` raised on rank 0 (rank 0 raises its own error),
            or rank 0 told no folder within ``WAIT``; where Lightning refuses the launcher's settings.
        OSError: where the file store cannot be made under ``runs_dir``.
    """
    if launched_by_torchrun():
        rank, store = int(os.environ["RANK"]), _agent_store()
    elif launch := launch_ranks(num_nodes):
        rank, store = launch[0], _file_store(runs_dir, *launch[1:])
    else:
        return resolve(), False
    if rank == 0:
        try:
            run_dir = resolve()
        except BaseException:
            store.set("folder", FAILED)
            raise
        store.set("folder", NO_FOLDER if run_dir is None else str(run_dir))
        return run_dir, False
    try:
        told = store.get("folder").decode()
    except RuntimeError:  # the store's timeout
        raise RankZeroFailed(f"rank {rank}: rank 0 told no run folder within {WAIT.total_seconds():g} s") from None
    if told == FAILED:
        raise RankZeroFailed(f"rank {rank}: rank 0 stopped before the run started (its message says why)")
    return (None if told == NO_FOLDER else Path(told)), True
