"""Load a data set from a Hugging Face hub id or a local folder, both through ``datasets.load_dataset``,
and check it before any training starts."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from zoo.data.cache import cache_key, content_digest
from zoo.data.cache_entries import datasets_cache_dir, mark_used
from zoo.data.file_checks import EmptyFileError, EncodingError, _first_bad_json_line, check_not_empty, check_utf8
from zoo.messages import nearest_paths

HUB_HOST = "huggingface.co"
TABLE_READERS = ("text", "json", "csv", "parquet", "arrow")  # the datasets readers whose rows zoo trains on
EXPECTED_FILES = (
    "a data set is one file or more per split, named by the split: train.txt and validation.txt (text), or "
    "train.jsonl (JSON lines), .csv, .parquet or .arrow files"
)
# the text reader's decoding: UTF-8 without a leading byte-order mark (Windows editors write one), which it would
# keep as a character of the first line; the CSV and JSON readers drop it themselves
TEXT_READ = {"encoding": "utf-8-sig"}


class DataFolderError(ValueError):
    """A local folder whose files are not text or tables (images, audio, notes)."""


def _looks_local(path: str) -> bool:
    return path.startswith((".", "/", "~")) or os.sep in path.strip("/").split("/", 1)[-1] or path.count("/") > 1


def _hub_reachable(timeout: float = 3.0) -> bool:
    if os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("HF_DATASETS_OFFLINE") == "1":
        return False
    try:
        socket.create_connection((HUB_HOST, 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def check_reachable(path: str) -> None:
    """Raise in one line naming ``data.path`` if it can be neither a local folder nor a hub id that loads: the
    checks made before any data is read (so that a sweep makes them before its first trial).

    Raises:
        ValueError: an empty path. FileNotFoundError: a path that looks local (or is a file) and is no folder.
        ConnectionError: a hub id while the hub cannot be reached (offline).
    """
    if not str(path).strip():
        raise ValueError(f"data.path={path!r} is empty; it must be a local folder or a hub id")
    local = Path(path).expanduser().absolute()
    if local.is_dir():
        return
    if local.exists() or _looks_local(path):
        near = nearest_paths(str(path), folders=True)
        raise FileNotFoundError(f"data.path={path!r} is not a folder ({_what_is_there(local)}){near}")
    if not _hub_reachable():
        raise ConnectionError(
            f"data.path={path!r} is not a local folder (there is none at {local}), and as a hub id it cannot be "
            f"loaded: the Hugging Face hub cannot be reached; pass --data.path with a local copy (a folder that "
            f"datasets.load_dataset reads)"
        )


def _what_is_there(local: Path) -> str:
    """What is at the absolute path ``local`` that is no folder, in the user's own words: the path as typed made
    absolute (a link in it left as is, not replaced by its target), and a link's target only where the path
    itself is a link (a dangling one)."""
    if local.is_symlink():
        return f"{local} is a link to {os.readlink(local)}, {'a file' if local.exists() else 'which does not exist'}"
    return f"{local} is a file" if local.exists() else f"there is none at {local}"


def load_splits(path: str, splits: list[str], name: str | None = None, text_options: dict | None = None, **kwargs):
    """Load ``splits`` of the data set at ``path``.

    Args:
        path: a local folder (e.g. ``../shared/data/multi30k``) or a hub id (e.g. ``bentrevett/multi30k``).
        splits: the split names that must exist and be non-empty.
        name: the hub configuration name, if any (e.g. ``wikitext-2-v1``); a local folder holds one
            configuration, so ``name`` is not used for it.
        text_options: passed to ``datasets.load_dataset`` where it reads plain text (``.txt`` files), as
            ``keep_linebreaks=True``; not for JSON, CSV or Parquet files, whose readers refuse them.
        **kwargs: passed to ``datasets.load_dataset``.

    Returns:
        A ``datasets.DatasetDict`` holding at least ``splits``.

    Raises:
        FileNotFoundError: ``data.path`` names a local folder that does not exist.
        ConnectionError: ``data.path`` is a hub id and the hub cannot be reached (checked once, no retries).
        ValueError: a split is missing or empty, or a local data file is not UTF-8 text.
    """
    import datasets
    import huggingface_hub

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # its errors reach the user as ours, in one line
    huggingface_hub.utils.logging.set_verbosity_error()
    check_reachable(path)
    local = Path(path).expanduser().absolute()  # "." is a folder datasets cannot name
    if local.is_dir():
        try:
            builder = _local_builder(local, path, kwargs)
            kwargs = {**kwargs, **TEXT_READ, **(text_options or {})} if builder.name == "text" else kwargs
            for files in (builder.config.data_files or {}).values():
                check_utf8(files, path)
                check_not_empty(files, path)
            digests = {str(split): content_digest(files) for split, files in (builder.config.data_files or {}).items()}
            kwargs = {"cache_dir": _content_cache_dir(digests), **kwargs}
            loaded = datasets.load_dataset(str(local), **kwargs)
            if Path(kwargs["cache_dir"]).parent == datasets_cache_dir():  # ours, not a cache_dir the caller gave
                mark_used(Path(kwargs["cache_dir"]))
        except (EncodingError, EmptyFileError, DataFolderError):
            raise
        except (ValueError, StopIteration) as error:  # e.g. 'Instruction "validation" corresponds to no data!'
            empty = [split for split in splits if f'"{split}" corresponds to no data' in str(error)]
            if empty:
                raise ValueError(f"data.path={path!r}: the split {empty[0]!r} is empty") from error
            raise ValueError(f"data.path={path!r} could not be read: {type(error).__name__} {error}") from error
        except datasets.exceptions.DatasetGenerationError as error:  # a malformed file, or splits of two types
            where = _first_bad_json_line(builder.config.data_files or {})
            loaded = None if where else _each_split_alone(local, builder.config.data_files or {}, kwargs)
            if loaded is None:
                raise ValueError(f"data.path={path!r} could not be read: {_reader_error(error)}{where}") from error
        for split, dataset in loaded.items():
            dataset._fingerprint = digests[split]  # as datasets' own transforms set it: what the split holds
    else:
        loaded = datasets.load_dataset(path, name, **_reader_options(path, name, kwargs, text_options))
    _check_splits(loaded, splits, path)
    return loaded


def _check_splits(loaded, splits: list[str], path: str) -> None:
    """Raise ``ValueError`` naming the first of ``splits`` that ``loaded`` lacks or holds empty."""
    for split in splits:
        if split not in loaded:
            raise ValueError(f"data.path={path!r} has no split {split!r}; it has: {', '.join(loaded)}")
        if len(loaded[split]) == 0:
            raise ValueError(f"data.path={path!r}: the split {split!r} is empty")


def _content_cache_dir(digests: dict[str, str]) -> str:
    """Where ``datasets`` keeps its Arrow copy of a local folder whose split files hash to ``digests``: its own
    cache is keyed by the files' modification times, so that an edit that keeps them would read the old rows."""
    return str(datasets_cache_dir() / cache_key(local_data=digests))


def _local_builder(local: Path, path: str, kwargs: dict):
    """The ``datasets`` builder of the local folder ``local`` (a local copy holds one configuration), if it
    reads text or a table: what every zoo data module trains on.

    Raises:
        FileNotFoundError: the folder holds no file that ``datasets`` reads.
        DataFolderError: ``datasets`` reads its files as something else (images, audio, task folders, ...): a
            folder of ``.md`` notes is a "harbor" data set to ``datasets`` 5.
    """
    import datasets

    try:
        builder = datasets.load_dataset_builder(str(local), **kwargs)
    except datasets.data_files.EmptyDatasetError:
        raise FileNotFoundError(
            f"data.path={path!r} holds no data files (looked in {local}); {EXPECTED_FILES}"
        ) from None
    nested = _nested_data_sets(local, builder.config.data_files or {})
    if nested:
        raise DataFolderError(
            f"data.path={path!r} holds no data files of its own but folders that look like data sets: "
            f"{', '.join(nested)}; pass one of them (e.g. --data.path={os.path.join(path, nested[0])})"
        )
    if builder.name not in TABLE_READERS:
        files = sorted(Path(file).name for files in (builder.config.data_files or {}).values() for file in files)
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        raise DataFolderError(
            f"data.path={path!r} holds no text or table files (datasets reads {shown} with its {builder.name!r} "
            f"reader); {EXPECTED_FILES}"
        )
    return builder


def _nested_data_sets(local: Path, data_files: dict) -> list[str]:
    """The sub-folders of ``local`` in which ``datasets`` finds split files of their own (sorted), when ``local``
    is a folder of data sets: no data file in it, and a split's files in several of its sub-folders
    (``datasets`` would read them as one split: ``multi30k/train.jsonl`` and ``sst2/train.jsonl``). Otherwise
    ``[]``: a data set's files may be in a sub-folder (``data/train.jsonl``) or in one a split
    (``train/part-0.jsonl``)."""
    from datasets.data_files import EmptyDatasetError, get_data_patterns

    root = os.path.abspath(local)  # as datasets names the files (a link in the folder may point elsewhere)
    places = [
        [Path(os.path.relpath(os.path.abspath(file), root)).parts for file in files] for files in data_files.values()
    ]
    if any(len(parts) == 1 for files in places for parts in files):
        return []
    if all(len({parts[0] for parts in files}) < 2 for files in places):
        return []
    found = []
    for folder in sorted(path for path in Path(root).iterdir() if path.is_dir()):
        try:
            get_data_patterns(str(folder))
        except EmptyDatasetError:
            continue
        found.append(folder.name)
    return found


def _each_split_alone(local: Path, data_files: dict, kwargs: dict):
    """The splits read one by one, each with the column types of its own files, or ``None`` if one of them
    cannot be read either. ``datasets`` casts every split to the types of the first: a label ``0.5`` in
    the validation split alone, or digits in one split's text column and words in another's, fails that cast
    in a message naming no split; read alone, the data module's checks name the split, the row and the field."""
    import datasets

    try:
        return datasets.DatasetDict(
            {
                split: datasets.load_dataset(str(local), data_files={split: list(files)}, **kwargs)[split]
                for split, files in data_files.items()
            }
        )
    except datasets.exceptions.DatasetGenerationError:
        return None


def _reader_options(path: str, name: str | None, kwargs: dict, text_options: dict | None) -> dict:
    """``kwargs``, and :data:`TEXT_READ` and ``text_options`` too where ``datasets`` reads the data as plain text
    (``.txt`` files), whose reader alone takes them (``keep_linebreaks``: JSON, CSV and Parquet readers refuse the
    key)."""
    import datasets

    reader = datasets.load_dataset_builder(path, name, **kwargs).name
    return {**kwargs, **TEXT_READ, **(text_options or {})} if reader == "text" else kwargs


def _reader_error(error: BaseException) -> str:
    """The first line of the reader's own message under ``datasets``' wrapper (e.g. pyarrow's "JSON parse
    error: ... in row 50"), or of the deepest cause."""
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__
        if not isinstance(error, (ValueError, OSError)) or "row" in str(error):
            break
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def no_data_module(base: type) -> str:
    """The line for a run whose data section names no data module (``base``, the abstract
    :class:`zoo.data.base.ZooDataModule`, stood in for one): which modules there are, and that a config file laid
    over another (``configs/encoder_decoder/recurrent/``) names none of its own."""

    def subclasses(klass: type) -> list[type]:
        return [found for sub in klass.__subclasses__() for found in (sub, *subclasses(sub))]

    named = sorted({f"zoo.data.{k.__name__}" for k in subclasses(base)
                    if k.__module__.startswith("zoo.") and k.load is not base.load})  # fmt: skip
    return (
        f"no data module is named (the data section has no class_path, so data is {base.__name__}, the base of "
        f"them): give --data CLASS ({', '.join(named)}) or a config with a data section; a config laid over another "
        f"(configs/encoder_decoder/recurrent/*.yaml) has none and goes after that one's --config"
    )
