"""Every string switch of the zoo, and the checks that report bad configuration in one line.

A component is chosen by a name and registered in one place (as fairseq does): the class or function carries
``@NORMS.register("name")`` in the module that defines it, and the tests, the sweeps' checks and ``--help``
parametrise over ``NORMS.names()``, so they pick a new component up by themselves.

This module imports nothing of the zoo, so every layer (``zoo.nn`` included) may import it. Each registry
names the module that holds its components (``home``) and imports it on first use, so that ``NORMS.names()``
is complete whatever was imported before.

Example:
    >>> NORMS.names()[:2]
    ['layernorm', 'rmsnorm']
    >>> SCHEDULES.check("step")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: model.schedule='step' is not valid; choose one of: 'inverse_sqrt', 'cosine', ...
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")

NAME = re.compile(r"[a-z][a-z0-9_]*")  # a run folder's name holds it, and YAML and the CLI read it as a string
YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def check_choice(field: str, value: object, valid: list) -> object:
    """Return ``value`` if it is one of ``valid``.

    Raises:
        ValueError: ``"<field>=<value> is not valid; choose one of: <valid>"``.
    """
    if value not in valid:
        choices = ", ".join(repr(v) for v in valid)
        raise ValueError(f"{field}={value!r} is not valid; choose one of: {choices}")
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
        raise ValueError(f"{field}={value!r} is not valid; it must be an integer >= {minimum}{extra}")


def check_between(field: str, value: float, low: float, high: float, high_inclusive: bool = False) -> None:
    """Check that ``low <= value < high`` (``<= high`` when ``high_inclusive``).

    Raises:
        ValueError: naming the field, the value and the interval.
    """
    inside = low <= value <= high if high_inclusive else low <= value < high
    if not inside:
        interval = f"[{low}, {high}]" if high_inclusive else f"[{low}, {high})"
        raise ValueError(f"{field}={value!r} is not valid; it must be in {interval}")


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


class Registry(Generic[T]):
    """A name -> class (or function) table for one kind of component.

    Args:
        field: the configuration field that selects from this registry (e.g. ``"model.norm"``); it is named
            in the error raised for an unknown name.
        home: the module whose import registers the components (imported on first use).
    """

    def __init__(self, field: str, home: str) -> None:
        self.field, self.home = field, home
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator that registers a class or function under ``name``.

        Raises:
            ValueError: if ``name`` is already registered, or is not a valid name: lowercase letters, digits and
                ``_``, starting with a letter, and no word that YAML reads as a boolean or null (``yes``).
        """
        if not NAME.fullmatch(name) or name in YAML_WORDS:
            raise ValueError(
                f"{self.field}: {name!r} is not a valid name to register; use lowercase letters, digits and _, "
                f"starting with a letter (a run folder's name holds it), and no word YAML reads as a boolean or "
                f"null ({', '.join(sorted(YAML_WORDS))})"
            )

        def add(entry: T) -> T:
            if name in self._entries:
                first = self._entries[name]
                raise ValueError(
                    f"{self.field}: {name!r} is registered twice: by {_where(entry)}, and before by {_where(first)}"
                )
            self._entries[name] = entry
            return entry

        return add

    def names(self) -> list[str]:
        """The registered names, in registration order."""
        importlib.import_module(self.home)
        return list(self._entries)

    def check(self, name: str) -> str:
        """Return ``name`` if it is registered.

        Raises:
            ValueError: ``"<field>=<name> is not valid; choose one of: <names>"``.
        """
        return check_choice(self.field, name, self.names())

    def get(self, name: str) -> T:
        """The class or function registered under ``name`` (raises ``ValueError`` as :meth:`check` does)."""
        return self._entries[self.check(name)]

    def build(self, name: str, *args, **kwargs):
        """Call (instantiate) the entry registered under ``name`` with the given arguments."""
        return self.get(name)(*args, **kwargs)


def _where(entry: object) -> str:
    """``module.QualifiedName`` of a registered class or function."""
    return f"{getattr(entry, '__module__', '?')}.{getattr(entry, '__qualname__', repr(entry))}"


NORMS: Registry = Registry("model.norm", "zoo.nn")
POSITIONAL_ENCODINGS: Registry = Registry("model.pe", "zoo.nn")
ACTIVATIONS: Registry = Registry("model.activation", "zoo.nn")
POOLINGS: Registry = Registry("model.pooling", "zoo.nn")
SCHEDULES: Registry = Registry("model.schedule", "zoo.tasks.schedules")
TOKENIZERS: Registry = Registry("data.tokenizer", "zoo.data.tokenizer")
