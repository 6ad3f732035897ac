"""``python -m zoo cache``: list the entries of the zoo's data cache with their sizes, and prune or clear them.

``python -m zoo cache list`` lists every entry, least recently used first, with its size and the
days since a run last used it; ``cache prune --older_than 30d`` removes those unused for longer, ``cache prune
--max_size 2G`` the least recently used until the rest fit; ``cache clear`` removes every entry. Entries are
made again when a run needs them (:mod:`zoo.data.cache_entries`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from zoo.inference.command import OneLineParser, main_of
from zoo.inference.errors import InferenceError

if TYPE_CHECKING:
    from zoo.data.cache_entries import Entry

UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}  # sizes in decimal units, as `du --si` and disks
AGES = {"": 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}  # a bare number is days


def arguments() -> OneLineParser:
    p = OneLineParser(prog="python -m zoo cache", description="List, prune or clear the zoo's data cache.")
    p.add_argument("action", choices=["list", "prune", "clear"], help="what to do with the cache (required)")
    p.add_argument("--cache_dir", help="another cache, read alone: not with the Arrow copies datasets keeps of "
                   "local data folders (default: $ZOO_CACHE or ~/.cache/zoo)")  # fmt: skip
    p.add_argument("--older_than", type=float | str | None,
                   help="prune: entries unused for longer than this (30d, 12h; a number: days)")  # fmt: skip
    p.add_argument("--max_size", type=float | str | None,
                   help="prune: then the least recently used until the rest hold at most this (2G)")  # fmt: skip
    return p


def parse_size(text: str) -> int:
    """``"2G"``, ``"500M"``, ``"1.5GB"``, ``"1000"`` -> bytes (decimal units).

    Raises:
        InferenceError: naming ``--max_size`` and the valid forms.
    """
    return int(_amount(text, r"([kmgt]?)b?", UNITS, "--max_size", "a size such as 500M, 2G or 1000000"))


def parse_age(text: str) -> float:
    """``"30d"``, ``"12h"``, ``"90m"``, ``"7"`` (days) -> seconds.

    Raises:
        InferenceError: naming ``--older_than`` and the valid forms.
    """
    return _amount(text, r"([dhms]?)", AGES, "--older_than", "an age such as 30d, 12h or 7 (days)")


def _amount(text: str, unit: str, units: dict[str, float], option: str, valid: str) -> float:
    """A non-negative number and its unit (the group of regex ``unit``, a key of ``units``) in base units."""
    match = re.fullmatch(rf"\s*(\d+(?:\.\d+)?)\s*{unit}\s*", text, re.IGNORECASE)
    if not match:
        raise InferenceError(f"{option}={text!r} is not valid; it must be {valid}")
    return float(match[1]) * units[match[2].lower()]


def _text(value: float | str) -> str:
    """A number as the text it stands for (``7.0`` -> ``"7"``, ``1e12`` -> ``"1000000000000"``), text as it is."""
    return f"{value:.0f}" if isinstance(value, float) and value.is_integer() else str(value)


def human(size: int) -> str:
    """Bytes in decimal units, three significant digits: ``1234567`` -> ``"1.23 MB"``."""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000:
            return f"{size:.3g} {unit}"
        size /= 1000
    return f"{size:.3g} TB"


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _line(entry: Entry, now: float) -> str:
    days = (now - entry.used) / 86400
    return f"{human(entry.size):>9}  {days:7.1f} days  {entry.kind:<21} {entry.path}"


def checked_arguments(argv: list[str]):
    """The arguments of ``cache`` (``argv``: those after it), checked before the data modules load (torch,
    datasets: seconds); ``older_than`` in seconds and ``max_size`` in bytes (``None``: not given).

    Raises:
        InferenceError: a bad argument, in one line.
    """
    args = arguments().parse_args(argv)
    given = args.older_than is not None or args.max_size is not None  # 0 is given: prune whatever is unused now
    if args.action != "prune" and given:
        raise InferenceError(f"--older_than and --max_size are options of `prune`, not of `{args.action}`")
    if args.action == "prune" and not given:
        raise InferenceError("prune needs --older_than (e.g. 30d), --max_size (e.g. 2G) or both")
    if args.cache_dir is not None and not Path(args.cache_dir).is_dir():
        raise InferenceError(f"--cache_dir={args.cache_dir!r} is not a folder; name the cache (e.g. $ZOO_CACHE)")
    args.older_than = parse_age(_text(args.older_than)) if args.older_than is not None else None
    args.max_size = parse_size(_text(args.max_size)) if args.max_size is not None else None
    return args


def run(argv: list[str]) -> None:
    args = checked_arguments(argv)
    from zoo.data.cache import default_cache_dir
    from zoo.data.cache_entries import datasets_cache_dir, entries, remove, to_prune

    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    arrow = None if args.cache_dir else datasets_cache_dir()  # --cache_dir: that folder alone
    found, now = entries(cache_dir, arrow), time.time()
    if args.action == "list":
        print("\n".join(_line(entry, now) for entry in found))
        folders = ", ".join(str(folder) for folder in (cache_dir, arrow) if folder is not None)
        print(f"{human(sum(e.size for e in found))} in {_entries(len(found))} ({folders})")
        return
    removed = found if args.action == "clear" else to_prune(found, args.older_than, args.max_size, now)
    for entry in removed:
        remove(entry)
    kept = sum(e.size for e in found) - sum(e.size for e in removed)
    print(f"removed {_entries(len(removed))} ({human(sum(e.size for e in removed))}); {human(kept)} kept")


main = main_of("cache", run)
