"""Registries: a component is chosen by a string name, and registered in one place (as fairseq does).

Adding a component is one class plus one ``@REGISTRY.register("name")`` line; the tests parametrise over
``REGISTRY.names()`` and pick the new component up automatically.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


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


class Registry(Generic[T]):
    """A name -> class table for one kind of component.

    Args:
        field: the configuration field that selects from this registry (e.g. ``"model.norm"``); it is named
            in the error raised for an unknown name.
    """

    def __init__(self, field: str) -> None:
        self.field = field
        self._classes: dict[str, type[T]] = {}

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        """Class decorator that registers ``cls`` under ``name``.

        Raises:
            ValueError: if ``name`` is already registered.
        """

        def add(cls: type[T]) -> type[T]:
            if name in self._classes:
                raise ValueError(f"{self.field}: {name!r} is registered twice")
            self._classes[name] = cls
            return cls

        return add

    def names(self) -> list[str]:
        """The registered names, in registration order."""
        return list(self._classes)

    def check(self, name: str) -> str:
        """Return ``name`` if it is registered.

        Raises:
            ValueError: naming the field, the value and the valid names.
        """
        return check_choice(self.field, name, self.names())

    def get(self, name: str) -> type[T]:
        """The class registered under ``name`` (raises ``ValueError`` as :meth:`check` does)."""
        return self._classes[self.check(name)]

    def build(self, name: str, *args, **kwargs) -> T:
        """Instantiate the class registered under ``name`` with the given arguments."""
        return self.get(name)(*args, **kwargs)
