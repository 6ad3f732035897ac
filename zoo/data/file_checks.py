"""Checks of a data folder's files before datasets reads them, and of the columns it read: each a one-line error
naming the file and what is valid."""

from __future__ import annotations

import json
from pathlib import Path

NOT_TEXT = (".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4", ".parquet", ".arrow")  # read by datasets, not checked here


class EmptyFileError(ValueError):
    """A data file with no bytes at all."""


class EncodingError(ValueError):
    """A data file that is not UTF-8 text."""


def _first_bad_json_line(data_files: dict) -> str:
    """`` (file F, line L)`` for the first JSON or JSON lines file that is not JSON, at its first bad line, or
    ``""`` (the reader's message names the row of a block, not the file)."""
    for files in data_files.values():
        for file in files:
            if str(file).endswith((".jsonl", ".json")) and (number := _bad_json_line(file)):
                return f" (file {file}, line {number})"
    return ""


def _bad_json_line(file) -> int | None:
    """The first line of ``file`` that is not JSON, or ``None``. A ``.json`` file is one JSON document (as
    ``json.load`` reads it) unless its first line is a whole JSON value, which makes it JSON lines (as
    ``datasets`` reads it)."""
    with open(file, encoding="utf-8-sig") as handle:  # a byte-order mark, which datasets reads, is no bad line
        lines = handle.read().splitlines()
    filled = [(number, line) for number, line in enumerate(lines, 1) if line.strip()]
    if str(file).endswith(".json") and filled and not _is_json(filled[0][1]):
        try:
            json.loads("\n".join(lines))
        except ValueError as error:
            return getattr(error, "lineno", 1)
        return None
    return next((number for number, line in filled if not _is_json(line)), None)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


LABEL_FIELDS = ("data.label_column",)  # the columns read that are not text (their values: check_labels)


def check_columns(dataset, columns: dict[str, str], path: str) -> None:
    """Check that every column a data module reads exists, with a value in every row.

    Args:
        dataset: a ``datasets.Dataset``.
        columns: field name -> column name (e.g. ``{"data.src_column": "de"}``).
        path: the data path, for the message.

    Raises:
        ValueError: naming the field, the missing column and the columns present; a text column of other
            values (numbers, lists); or the first row without a value (missing or null) in a column.
    """
    split = f"the {str(dataset.split)!r} split" if dataset.split else "a split"
    for field, column in columns.items():
        if column not in dataset.column_names:
            raise ValueError(
                f"{field}={column!r} is not a column of data.path={path!r}; its columns are: "
                f"{', '.join(dataset.column_names)}"
            )
        feature = dataset.features[column]
        is_text = getattr(feature, "dtype", None) in ("string", "large_string")
        if field not in LABEL_FIELDS and not is_text and getattr(feature, "dtype", None) != "null":
            kind = feature.dtype if hasattr(feature, "dtype") else type(feature).__name__.lower()
            numbers = kind not in ("list", "sequence", "struct") and not isinstance(feature, dict)
            fix = (
                "a CSV or JSON reader reads a column of digits as numbers, and drops leading zeros); write them as "
                'JSON strings ("012")'
                if numbers
                else "each row needs one string); join the pieces into one text per row"
            )
            raise ValueError(
                f"{field}={column!r} holds {kind} values in {split} of data.path={path!r}, not text ({fix}"
            )
        missing = next((row for row, value in enumerate(dataset[column]) if value is None), None)
        if missing is not None:
            raise ValueError(
                f"row {missing} of {split} of data.path={path!r} has no {column!r} (missing or null); every row "
                f"needs a value in {field}={column!r}"
            )


def check_not_empty(files: list[str], path: str) -> None:
    """Check that no data file is empty (``datasets`` fails on one with a message about writing data).

    Raises:
        EmptyFileError: naming the file.
    """
    for file in files:
        if Path(file).is_file() and Path(file).stat().st_size == 0:
            raise EmptyFileError(f"data.path={path!r}: {Path(file).name} is empty; every split file needs data")


def check_utf8(files: list[str], path: str) -> None:
    """Check that text data files are UTF-8, the encoding ``datasets`` reads them in.

    Args:
        files: data file paths (compressed and binary formats such as Parquet are skipped).
        path: the data path, for the message.

    Raises:
        EncodingError: a ``ValueError`` naming the first file that is not UTF-8, the line and column of its
            first bad byte, and the encoding expected.
    """
    for file in map(Path, files):
        if file.suffix in NOT_TEXT:
            continue
        with file.open("rb") as lines:
            for number, line in enumerate(lines, start=1):  # b"\n" never occurs inside a UTF-8 character
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as error:
                    column = len(line[: error.start].decode("utf-8")) + 1
                    utf16 = number == 1 and line[:2] in (b"\xff\xfe", b"\xfe\xff")  # its byte-order mark
                    raise EncodingError(
                        f"data.path={path!r}: {file.name} is not UTF-8 text (line {number}, column {column}: "
                        f"byte 0x{line[error.start]:02x}); zoo reads data files as UTF-8, so convert it first, "
                        f"e.g. iconv -f {'utf-16' if utf16 else 'latin1'} -t utf-8"
                    ) from None
