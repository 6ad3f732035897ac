"""Trainer fields typed ``int | float`` read ``1`` as the integer 1 whatever was imported first.

``typing`` caches ``Optional[Union[int, float]]`` under a key that equals ``Optional[Union[float, int]]`` (a Union
compares its members as a set), so the order of a Trainer annotation is that of whichever module spelt it first:
after ``import sklearn.gaussian_process`` (which W&B's sweep engine imports), ``Trainer.__init__`` says
``Union[float, int, None]``. jsonargparse tries a Union's members in order, and Lightning reads the two types
differently: ``--trainer.limit_val_batches=1`` is one batch as an int and all of them as the float 1.0.
"""

from __future__ import annotations

import functools
import operator
import typing
from collections.abc import Callable


def int_before_float(function: Callable) -> None:
    """Rewrite the annotations of ``function`` that list ``float`` before ``int`` in one Union so that ``int``
    comes first (as ``int | float | None``, a ``types.UnionType``, which ``typing`` does not cache). Idempotent;
    other annotations are kept as they are."""
    annotations = getattr(function, "__annotations__", {})
    for name, annotation in list(annotations.items()):
        members = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Union else ()
        if int in members and float in members and members.index(float) < members.index(int):
            ordered = [int, float, *(m for m in members if m not in (int, float))]
            annotations[name] = functools.reduce(operator.or_, ordered)
