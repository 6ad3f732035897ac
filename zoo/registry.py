"""Every string switch of the zoo (its one-line messages for a bad value are :mod:`zoo.messages`').

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

import importlib
import re
from collections.abc import Callable
from typing import Generic, TypeVar

from zoo.messages import add_synonyms, check_choice

T = TypeVar("T")

NAME = re.compile(r"[a-z][a-z0-9_]*")  # a run folder's name holds it, and YAML and the CLI read it as a string
YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


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

    def register(self, name: str, synonyms: tuple[str, ...] = ()) -> Callable[[T], T]:
        """Decorator that registers a class or function under ``name``; ``synonyms`` are the other names it goes
        by (``rope``: ``rotary``), which a refused value is pointed from to ``name`` (:func:`meant`).

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
            add_synonyms(self.field, name, synonyms)
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
RNN_CELLS: Registry = Registry("model.rnn_cell", "zoo.nn")
RNN_ATTENTIONS: Registry = Registry("model.rnn_attention", "zoo.nn")
ARCHITECTURES = ["transformer", "rnn"]  # model.architecture: self-attention (Vaswani et al. 2017) or recurrence

