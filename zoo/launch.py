"""One launch, one run folder: the ranks that ``torchrun`` starts each run the whole command, and only the first
(global rank 0) resolves the run folder; the others are told which it is.

``torchrun`` (``python -m torch.distributed.run``) starts every rank itself, on every node, so no rank
inherits the folder from another as the ranks of Lightning's own DDP launcher do (``ZOO_RUN_DIR``,
:func:`zoo.run_session.inherited_run_dir`): each made its own, ``name`` and ``name-2``. Its agent serves a
key-value store to the ranks of the launch (``TORCHELASTIC_USE_AGENT_STORE``, at ``MASTER_ADDR:MASTER_PORT``,
a new one for each launch and each restart), reachable from every node whether or not they share a file system:
rank 0 puts the folder there, and the others wait for it, whichever starts first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

NO_FOLDER, FAILED = "-", "!"  # what rank 0 tells: the command records nothing; it stopped before a folder
WAIT = timedelta(minutes=10)  # for rank 0 to resolve the folder: it loads no data before


class RankZeroFailed(RuntimeError):
    """Rank 0 stopped before it had a run folder (its own message says why)."""


def launched_by_torchrun() -> bool:
    """Whether this process is one of several ranks that a ``torchrun`` agent started, with its store."""
    return os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True" and int(os.environ.get("WORLD_SIZE", "1")) > 1


def global_rank() -> int:
    """This process's rank among all the launch's processes (``RANK``; 0 when launched alone)."""
    return int(os.environ.get("RANK", "0"))


def _store():
    """A client of the agent's store, keyed under this launch attempt (a restart resolves the folder anew)."""
    from torch.distributed import PrefixStore, TCPStore

    client = TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False, timeout=WAIT)
    return PrefixStore(f"zoo/run_dir/attempt_{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", client)


def shared_run_dir(resolve: Callable[[], Path | None], store_factory: Callable = _store) -> tuple[Path | None, bool]:
    """The launch's run folder: ``resolve()`` on rank 0 (or alone), told to the other ranks through the agent's
    store (``store_factory()``, anything with ``set`` and ``get``), which wait for it.

    Returns:
        The folder (``None`` for a command that records nothing), and whether another rank resolved it.

    Raises:
        RankZeroFailed: on the other ranks, when ``resolve()`` raised on rank 0 (rank 0 raises its own error).
    """
    if not launched_by_torchrun():
        return resolve(), False
    store = store_factory()
    if global_rank() == 0:
        try:
            run_dir = resolve()
        except BaseException:
            store.set("folder", FAILED)
            raise
        store.set("folder", NO_FOLDER if run_dir is None else str(run_dir))
        return run_dir, False
    told = store.get("folder").decode()
    if told == FAILED:
        raise RankZeroFailed(f"rank {global_rank()}: rank 0 stopped before the run started (its message says why)")
    return (None if told == NO_FOLDER else Path(told)), True
