"""The one-line messages of bad configuration, for every layer: a value as a message shows it (:func:`said`),
the value it is another name of or nearest to (:func:`meant`, :func:`nearest_paths`), and the checks that raise
``ValueError`` naming the field, the value and what is valid (:func:`check_choice`, :func:`check_at_least`,
:func:`check_between`). Imports nothing of the zoo.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path


def said(value: object) -> str:
    """``repr`` of ``value`` for a message, as a command line or a config file spells it: ``true``, ``false``
    and ``null`` for Python's bools and ``None``, a float without its binary noise (``0.000225``, not
    ``0.00022500000000000002``; twelve significant digits keep every digit a user types).

    Example:
        >>> said(0.0003 * 0.75), said(1e-4), said("rope"), said(False), said(None)
        ('0.000225', '0.0001', "'rope'", 'false', 'null')
    """
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, float) and math.isfinite(value):
        return repr(float(f"{value:.12g}"))
    if isinstance(value, (list, tuple)):
        items = ", ".join(said(item) for item in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' * (len(value) == 1)})"
    return repr(value)


# field -> {another common name: the zoo's name} (``model.pe``: ``rotary`` -> ``rope``), filled by
# :meth:`Registry.register` and :func:`add_synonyms`
SYNONYMS: dict[str, dict[str, str]] = {}


def add_synonyms(field: str, name: str, synonyms: tuple[str, ...]) -> None:
    """Make each of ``synonyms`` (other names papers and libraries give it) point to the value ``name`` of
    ``field`` in the hint of a refused value (:func:`meant`)."""
    table = SYNONYMS.setdefault(field, {})
    for synonym in synonyms:
        table[synonym.lower()] = name


def meant(field: str, value: object, valid: list) -> str:
    """``"; did you mean 'rope'?"`` for a refused ``value`` of ``field``: the valid value it is another name of
    (:data:`SYNONYMS`: ``rotary``, ``pre_ln``, ``noam``), or written otherwise (``RoPE``, ``inverse-sqrt``), or
    nearest by spelling (``sinusodial``); ``""`` when none is near.

    Example:
        >>> meant("model.norm", "RMSNrom", ["layernorm", "rmsnorm"])
        "; did you mean 'rmsnorm'?"
    """
    text = str(value).strip().strip("'\"").lower().replace("-", "_")
    names = {str(v): v for v in valid}
    name = SYNONYMS.get(field, {}).get(text, text if text in names else None)
    if name is None:
        near = difflib.get_close_matches(text, list(names), n=1, cutoff=0.8)  # groupnorm: not rmsnorm
        name = near[0] if near else None
    return f"; did you mean {names[name]!r}?" if name in names else ""


def check_choice(field: str, value: object, valid: list) -> object:
    """Return ``value`` if it is one of ``valid``.

    Raises:
        ValueError: ``"<field>=<value> is not valid; choose one of: <valid>"``, and the valid value it is
            another name of, or nearest to (:func:`meant`).
    """
    if value not in valid:
        choices = ", ".join(repr(v) for v in valid)
        raise ValueError(f"{field}={said(value)} is not valid; choose one of: {choices}{meant(field, value, valid)}")
    return value


def check_at_least(field: str, value: object, minimum: int, optional: bool = False) -> None:
    """Check that ``value`` is an integer >= ``minimum`` (or ``None`` when ``optional``).

    Raises:
        ValueError: ``"<field>=<value> is not valid; it must be an integer >= <minimum>"``.
    """
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        extra = " (or null)" if optional else ""
        raise ValueError(f"{field}={said(value)} is not valid; it must be an integer >= {minimum}{extra}")


def check_between(field: str, value: float, low: float, high: float, high_inclusive: bool = False) -> None:
    """Check that ``low <= value < high`` (``<= high`` when ``high_inclusive``).

    Raises:
        ValueError: naming the field, the value and the interval.
    """
    inside = low <= value <= high if high_inclusive else low <= value < high
    if not inside:
        interval = f"[{low}, {high}]" if high_inclusive else f"[{low}, {high})"
        raise ValueError(f"{field}={said(value)} is not valid; it must be in {interval}")


def nearest_paths(path: str, folders: bool) -> str:
    """``"; did you mean X?"`` for the folders (``folders``) or files beside ``path`` whose names are nearest to
    its name, as typed (``../shared/data/tinyshakespear`` -> ``../shared/data/tinyshakespeare``); ``""`` when
    none is near or its folder cannot be read.

    Example:
        >>> nearest_paths("zoo/registy.py", folders=False)
        '; did you mean zoo/registry.py?'
    """
    typed = Path(path)
    try:
        beside = [entry for entry in typed.parent.expanduser().iterdir() if entry.is_dir() == folders]
    except OSError:
        return ""
    names = difflib.get_close_matches(typed.name, sorted(entry.name for entry in beside), n=3, cutoff=0.6)
    return f"; did you mean {', '.join(str(typed.parent / name) for name in names)}?" if names else ""
