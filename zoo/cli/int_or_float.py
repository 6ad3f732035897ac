"""Trainer fields typed with a Union read a number as the number it is, whatever was imported first.

``typing`` caches ``Optional[Union[int, float]]`` under a key that equals ``Optional[Union[float, int]]`` (a Union
compares its members as a set), so the order of a Trainer annotation is that of whichever module spelt it first:
after ``import sklearn.gaussian_process`` (which W&B's sweep engine imports), ``Trainer.__init__`` says
``Union[float, int, None]``. jsonargparse tries a Union's members in order, and Lightning reads the two types
differently: ``--trainer.limit_val_batches=1`` is one batch as an int and all of them as the float 1.0.
jsonargparse also keeps a flag's text for a ``str`` member tried before ``int``; with ``int`` first,
``--trainer.devices=1`` (``Union[list[int], str, int]``) is the integer 1, as ``devices: 1`` in a config file is.
"""

from __future__ import annotations

import functools
import operator
import typing
from collections.abc import Callable


def numbers_first(function: Callable) -> None:
    """Rewrite the annotations of ``function`` that hold ``int`` in a Union after ``float`` or after another
    member (``str``) so that ``int`` comes first and ``float`` second (as ``int | float | None``, a
    ``types.UnionType``, which ``typing`` does not cache). Idempotent; other annotations are kept as they are."""
    annotations = getattr(function, "__annotations__", {})
    for name, annotation in list(annotations.items()):
        members = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Union else ()
        if int not in members or members[: 1 + (float in members)] in ((int,), (int, float)):
            continue
        ordered = [int, *(m for m in (float,) if m in members), *(m for m in members if m not in (int, float))]
        annotations[name] = functools.reduce(operator.or_, ordered)
