"""An on-disk cache for trained tokenizers and tokenised splits, keyed by everything that affects them."""

from __future__ import annotations

import hashlib
import json
import os
from functools import partial
from pathlib import Path

import torch

CACHE_VERSION = 6  # 2: lossless wordpiece decoding; 3: wordpiece words keep their space (first word too);
# 4: wordpiece training is deterministic; 5: wordpiece keeps leading and extra spaces, and the seen letters of a
# word with an unseen character; 6: a .txt file's byte-order mark is no character (same bytes, other text)


def default_cache_dir() -> Path:
    """``$ZOO_CACHE`` or ``~/.cache/zoo``."""
    return Path(os.environ.get("ZOO_CACHE", Path.home() / ".cache" / "zoo"))


def cache_key(**parts) -> str:
    """A short hash of ``parts`` (any JSON-serialisable values) and the cache format version."""
    blob = json.dumps({"version": CACHE_VERSION, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def content_digest(files: list[str | Path]) -> str:
    """A hash of the files' names and bytes, in the order given: what identifies a local data split.

    A file's modification time and size are no identity: an edit that keeps both (``os.utime``, ``cp -p``, a
    checkout, a coarse clock) would serve the old encoded split. BLAKE2b reads about a gigabyte a second, a
    few milliseconds for the zoo's data sets.

    Returns:
        32 hexadecimal digits.
    """
    whole = hashlib.blake2b(digest_size=16)
    for file in map(Path, files):
        with file.open("rb") as handle:
            digest = hashlib.file_digest(handle, partial(hashlib.blake2b, digest_size=16))
        whole.update(f"{file.name}\0{digest.hexdigest()}\0".encode())
    return whole.hexdigest()


def atomic_save(obj, path: Path) -> None:
    """``torch.save`` to a temporary file, then rename, so that concurrent ranks never read a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def atomic_write_text(text: str, path: Path) -> None:
    """Write ``text`` to a temporary file, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
