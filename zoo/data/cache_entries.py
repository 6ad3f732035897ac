"""The entries of the zoo's on-disk cache, to list and prune them (``python -m zoo cache``).

An entry is one folder, removed whole: a data key under ``$ZOO_CACHE`` (a trained tokenizer and the tokenised
splits, :meth:`zoo.data.base.ZooDataModule.prepare`), a generated synthetic data set (``synthetic/reverse-*``),
or the Arrow copy ``datasets`` keeps of a local data folder (``zoo-by-content/*`` under its own cache,
``$HF_DATASETS_CACHE``). A run that uses an entry marks it used (:func:`mark_used`: its modification time), so
that pruning by age or size removes the least recently used first; a removed entry is made again when needed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Entry:
    """One cache entry: its folder, what it holds, its size in bytes and when it was last used (Unix time)."""

    path: Path
    kind: str
    size: int
    used: float


def mark_used(folder: Path) -> None:
    """Record that a run uses the entry ``folder`` now (its modification time; reading leaves it unchanged)."""
    try:
        os.utime(folder)
    except OSError:  # a read-only cache still serves
        pass


def datasets_cache_dir() -> Path:
    """Where ``datasets`` keeps the zoo's Arrow copies of local data folders."""
    import datasets

    return Path(datasets.config.HF_DATASETS_CACHE) / "zoo-by-content"


def entries(cache_dir: Path, arrow_dir: Path | None = None) -> list[Entry]:
    """The entries under ``cache_dir`` (``$ZOO_CACHE``) and ``arrow_dir`` (:func:`datasets_cache_dir`), least
    recently used first."""
    found = []
    for folder in _folders(Path(cache_dir)):
        if folder.name == "synthetic":
            found += [_entry(data, "synthetic data") for data in _folders(folder)]
        else:
            found.append(_entry(folder, "tokenizer and splits"))
    if arrow_dir is not None:
        found += [_entry(folder, "datasets Arrow copy") for folder in _folders(Path(arrow_dir))]
    return sorted(found, key=lambda entry: (entry.used, str(entry.path)))


def to_prune(found: list[Entry], older_than: float | None, max_size: int | None, now: float) -> list[Entry]:
    """The entries to remove: those last used more than ``older_than`` seconds before ``now``, then the least
    recently used of the others until they hold at most ``max_size`` bytes (``None``: no such bound).

    Args:
        found: the entries, least recently used first (:func:`entries`).
    """
    old = [entry for entry in found if older_than is not None and now - entry.used > older_than]
    kept = [entry for entry in found if entry not in old]
    total = sum(entry.size for entry in kept)
    for entry in kept:
        if max_size is None or total <= max_size:
            break
        old.append(entry)
        total -= entry.size
    return old


def remove(entry: Entry) -> None:
    """Remove an entry's folder (one a concurrent prune removed first is no error)."""
    shutil.rmtree(entry.path, ignore_errors=True)


def _folders(parent: Path) -> list[Path]:
    return sorted(path for path in parent.iterdir() if path.is_dir()) if parent.is_dir() else []


def _entry(folder: Path, kind: str) -> Entry:
    files = [path for path in folder.rglob("*") if path.is_file()]
    size = sum(path.stat().st_size for path in files)
    return Entry(folder, kind, size, folder.stat().st_mtime)
