"""What makes a file a zoo checkpoint, checked in one place for every command that reads one (``fit``,
``validate``, ``test``, ``predict`` and the inference commands) before anything else loads it, and loaded once
per version of the file (:func:`load_checkpoint`)."""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path

from zoo.messages import nearest_paths
from zoo.runs.folders import RunFolderError


class CheckpointFileError(ValueError):
    """A file that is not a zoo checkpoint; the message names the field, the file and what it lacks."""


def checked_checkpoint(checkpoint: object, ckpt_path: str, field: str = "ckpt_path") -> dict:
    """``checkpoint`` (the loaded contents of ``ckpt_path``) if it is a zoo checkpoint: a dict written by
    Lightning (``pytorch-lightning_version``) with weights (a non-empty ``state_dict``) and the zoo task that
    made them (``hyper_parameters._class_path``).

    Raises:
        CheckpointFileError: naming ``field``, the file and the first thing it lacks.
    """
    if not isinstance(checkpoint, dict):
        kind = type(checkpoint).__name__
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a Lightning checkpoint (it holds a {kind})")
    if not isinstance(checkpoint.get("state_dict"), dict) or not checkpoint["state_dict"]:
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a Lightning checkpoint (no state_dict of weights)")
    hyper_parameters = checkpoint.get("hyper_parameters")
    if "pytorch-lightning_version" not in checkpoint or not isinstance(hyper_parameters, dict):
        raise CheckpointFileError(
            f"{field}={ckpt_path!r} is not a checkpoint that Lightning wrote (no pytorch-lightning_version or "
            f"hyper_parameters)"
        )
    if "_class_path" not in hyper_parameters:
        raise CheckpointFileError(
            f"{field}={ckpt_path!r} is not a zoo checkpoint (no task class in its hyper_parameters)"
        )
    return checkpoint


def check_is_file(ckpt_path: str, field: str = "ckpt_path") -> None:
    """Raise :class:`CheckpointFileError` naming ``field`` if ``ckpt_path`` is not a file: the first check of
    :func:`read_checkpoint_file`, which the commands on a trained model make before torch loads (seconds)."""
    if not Path(ckpt_path).is_file():
        raise CheckpointFileError(not_a_checkpoint_file(ckpt_path, field))


def not_a_file(path: str, field: str) -> str:
    """The line for a ``field`` (``--input``) that names no file, with the files beside it nearest to it."""
    return f"{field}={path!r} is not a file{nearest_paths(path, folders=False)}"


CHECKPOINT_FILE = "name a checkpoint file (*.ckpt; a run keeps them in runs/<name>/checkpoints/)"
LISTED = 6  # the checkpoints of a folder named in the line of a checkpoint field given the folder


def not_a_checkpoint_file(path: str, field: str) -> str:
    """The line for a checkpoint ``field`` (``ckpt_path``, ``--ckpt``) that names no file: for a folder (a run
    folder, its ``checkpoints/``), the checkpoints in it, newest first; else the files beside it nearest to it."""
    folder = Path(path)
    if not folder.is_dir():
        near = nearest_paths(path, folders=False) or f"; {CHECKPOINT_FILE}"
        return f"{field}={path!r} is not a file{near}"
    files = [*folder.glob("*.ckpt"), *folder.glob("checkpoints/*.ckpt")]
    found = sorted(files, key=lambda file: file.stat().st_mtime, reverse=True)
    if not found:
        return f"{field}={path!r} is a folder, with no checkpoint (*.ckpt) in it or in its checkpoints/"
    more = f" and {len(found) - LISTED} more" if len(found) > LISTED else ""
    listed = ", ".join(str(file) for file in found[:LISTED])
    return f"{field}={path!r} is a folder, not a checkpoint file; give one of its checkpoints: {listed}{more}"


def read_checkpoint_file(ckpt_path: str, field: str = "ckpt_path", mmap: bool = False) -> dict:
    """The contents of the zoo checkpoint at ``ckpt_path``, loaded with ``weights_only=True`` onto the CPU
    (``mmap``: memory-mapped, the tensors not read).

    Raises:
        CheckpointFileError: in one line naming ``field`` and the file, if it is missing, not a file written by
            ``torch.save`` (empty, another format), damaged (truncated, or a record whose CRC-32 does not match),
            or not a zoo checkpoint (:func:`checked_checkpoint`).
    """
    import torch

    check_is_file(ckpt_path, field)
    damage = _zip_damage(ckpt_path)
    if damage:
        raise CheckpointFileError(f"{field}={ckpt_path!r} {damage}")
    try:
        checkpoint = torch.load(ckpt_path, map_location="cpu", weights_only=True, mmap=mmap)
    except Exception as error:  # torch raises many kinds for a damaged file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointFileError(f"{field}={ckpt_path!r} is not a checkpoint that zoo can load ({reason})") from None
    return checked_checkpoint(checkpoint, ckpt_path, field)


_ZIP_MAGIC = b"PK\x03\x04"  # a local file header: how every file torch.save writes begins


def _zip_damage(ckpt_path: str) -> str | None:
    """What is wrong with ``ckpt_path`` as the zip archive that ``torch.save`` writes, or None if nothing is:
    not a zip file at all, a zip file cut short (no end record: copied while it was being written), or a record
    whose bytes no longer match the CRC-32 stored beside them (``torch.save`` stores one for each record unless
    ``torch.serialization.set_crc32_options(False)``: records stored with a CRC of 0 are not checked). One read
    of the file; without it, flipped bytes inside a tensor load silently and show up as a NaN at some step."""
    if not zipfile.is_zipfile(ckpt_path):
        with open(ckpt_path, "rb") as file:
            started_as_zip = file.read(len(_ZIP_MAGIC)) == _ZIP_MAGIC
        if started_as_zip:
            return "is a damaged or truncated checkpoint (a zip file with no end record: copied while being written?)"
        return "is not a checkpoint (not a file written by torch.save)"
    try:
        with zipfile.ZipFile(ckpt_path) as archive:
            for record in archive.infolist():
                if record.CRC == 0 and record.file_size:
                    continue
                with archive.open(record) as stream:
                    while stream.read(1 << 22):
                        pass
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"is a damaged checkpoint ({reason})"
    return None


def import_class(class_path: str) -> type:
    """The class named by a dotted path (``zoo.tasks.TranslationTask``)."""
    module, _, name = class_path.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


def load_checkpoint(ckpt_path: str) -> dict:
    """The checkpoint at ``ckpt_path``, memory-mapped (tensors are not read) and loaded once for all the checks
    before training (again if the file has changed since: another file, size, or modification or status change
    time; the last changes with every write and ``os.utime``, so a copy that kept the old modification time, as
    ``cp -p`` and ``rsync -t`` keep it, is read anew).

    Raises:
        CheckpointFileError: if it is not a zoo checkpoint (:func:`zoo.runs.checkpoint_file.read_checkpoint_file`).
    """
    stat = Path(ckpt_path).stat() if Path(ckpt_path).exists() else None
    identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns) if stat else None
    return _load_checkpoint_version(str(ckpt_path), identity)


@functools.lru_cache(maxsize=1)
def _load_checkpoint_version(ckpt_path: str, identity: tuple | None) -> dict:
    return read_checkpoint_file(ckpt_path, mmap=True)


def check_loadable(ckpt_path: str) -> None:
    """Raise ``RunFolderError`` in one line, before the run starts, if ``ckpt_path`` is not a zoo checkpoint that
    loads with ``weights_only=True`` (memory-mapped: the tensors are not read)."""
    try:
        load_checkpoint(ckpt_path)
    except CheckpointFileError as error:
        raise RunFolderError(str(error)) from None
