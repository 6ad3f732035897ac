"""One command at a time in a folder: a run folder while ``fit``, ``validate``, ``test`` or ``predict`` writes
its record, a sweep's folder while ``zoo sweep`` runs it.

Two commands writing one run folder at once interleave its ``metrics.jsonl``, overwrite each other's
checkpoints and ``summary.json``, and continue one W&B run twice: a second ``fit --ckpt_path last`` typed
while the first still trains would do exactly that. The lock is the kernel's (``flock`` on the folder itself,
no lock file), so a command killed with SIGKILL holds nothing afterwards and no stale lock is ever left.
Where ``flock`` does not exist (Windows), folders are not locked.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

_HELD: dict[Path, int] = {}  # folder -> the descriptor holding its lock, in this process


class FolderInUse(Exception):
    """Another process holds the folder's lock."""


def hold(folder: Path) -> None:
    """Take ``folder``'s lock for this process until :func:`release` (or the process's end); a folder this
    process holds already stays held. A file system that cannot lock (some network ones) locks nothing.

    Raises:
        FolderInUse: another process holds it.
    """
    folder = Path(folder).resolve()
    if fcntl is None or folder in _HELD:
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise FolderInUse(str(folder)) from None
    except OSError:
        os.close(descriptor)
        return
    _HELD[folder] = descriptor


def in_use(folder: Path) -> bool:
    """Whether another process holds ``folder``'s lock now (a command still writing it)."""
    folder = Path(folder).resolve()
    if fcntl is None or folder in _HELD or not folder.is_dir():
        return False
    try:
        hold(folder)
    except FolderInUse:
        return True
    release(folder)
    return False


def release(folder: Path | None = None) -> None:
    """Release ``folder``'s lock, or every lock this process holds (``None``)."""
    folders = list(_HELD) if folder is None else [Path(folder).resolve()]
    for held in folders:
        descriptor = _HELD.pop(held, None)
        if descriptor is not None:
            os.close(descriptor)  # closing the descriptor releases its flock
