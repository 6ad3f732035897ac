"""One launch, one run folder: where a launcher starts every rank itself (``torchrun``, SLURM's ``srun``,
``mpirun``, or any that sets ``RANK`` and ``WORLD_SIZE``), each rank runs the whole command, and only the first
(global rank 0) resolves the run folder; the others are told which it is.

Such ranks do not inherit the folder from another, as the ranks of Lightning's own DDP launcher do
(``ZOO_RUN_DIR``, :func:`zoo.cli.session.inherited_run_dir`): each made its own, ``name`` and ``name-2``.
``torchrun``'s agent serves a key-value store to the ranks of the launch (``TORCHELASTIC_USE_AGENT_STORE``, at
``MASTER_ADDR:MASTER_PORT``, a new one for each launch and each restart), reachable from every node whether or
not they share a file system. Other launchers serve none, so the ranks meet in a file store
(``torch.distributed.FileStore``) at ``<runs_dir>/.launch/<launch>``, named by what the launcher gives each
launch (SLURM's job, step and restart count; Open MPI's job; else ``MASTER_ADDR:MASTER_PORT``): on several
nodes, ``runs_dir`` must be on a file system they share, as it is on SLURM clusters. Either way rank 0 puts the
folder there, and the others wait for it, whichever starts first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

NO_FOLDER, FAILED = "-", "!"  # what rank 0 tells: the command records nothing; it stopped before a folder
WAIT = timedelta(minutes=10)  # for rank 0 to resolve the folder: it loads no data before
# launchers that start every rank themselves: (rank, number of ranks, what names one launch), first match wins
LAUNCHERS = (
    ("SLURM_PROCID", "SLURM_NTASKS", ("SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_RESTART_COUNT")),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", ("OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE")),
    ("RANK", "WORLD_SIZE", ("MASTER_ADDR", "MASTER_PORT")),
)


class RankZeroFailed(RuntimeError):
    """Rank 0 stopped before it had a run folder (its own message says why), or did not tell it in time."""


def launched_by_torchrun() -> bool:
    """Whether this process is one of several ranks that a ``torchrun`` agent started, with its store."""
    return os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True" and int(os.environ.get("WORLD_SIZE", "1")) > 1


def launch_ranks() -> tuple[int, int, str] | None:
    """This process's global rank, the number of ranks and the name of the launch, where a launcher without an
    agent store started several (``None`` otherwise: alone, under Lightning's own launcher or ``torchrun``)."""
    if launched_by_torchrun():
        return None
    for rank, size, names in LAUNCHERS:
        if rank in os.environ and (ranks := int(os.environ.get(size, "1"))) > 1:
            launch = [rank.split("_")[0].lower(), *(os.environ[name] for name in names if name in os.environ)]
            return int(os.environ[rank]), ranks, "-".join(launch).replace("/", "_")
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


def shared_run_dir(resolve: Callable[[], Path | None], runs_dir: Path) -> tuple[Path | None, bool]:
    """The launch's run folder: ``resolve()`` on global rank 0 (or alone), told to the other ranks through the
    torchrun agent's store or, under other launchers, a file store under ``runs_dir``; they wait for it.

    Returns:
        The folder (``None`` for a command that records nothing), and whether another rank resolved it.

    Raises:
        RankZeroFailed: on the other ranks, when ``resolve()`` raised on rank 0 (rank 0 raises its own error),
            or rank 0 told no folder within ``WAIT``.
        OSError: where the file store cannot be made under ``runs_dir``.
    """
    if launched_by_torchrun():
        rank, store = int(os.environ["RANK"]), _agent_store()
    elif launch := launch_ranks():
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
