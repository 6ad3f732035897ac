"""The checks of a decoder's settings (beam search, sampling), in a module that imports neither torch nor the
decoders: a task checks its ``model.*`` settings here, and ``python -m zoo translate`` and ``generate`` their
flags before the model's modules load (seconds)."""

from __future__ import annotations

import math

from zoo.messages import check_at_least, check_between


def check_decoder_settings(
    beam_size: int | None,
    length_penalty: float | None,
    max_len_a: float | None,
    max_len_b: int | None,
    prefix: str = "",
) -> None:
    """Check a translation decoder's settings, each named ``prefix`` + its name (``model.beam_size``,
    ``--beam_size``); ``None`` is unset (the model's own value). The length penalty and the length limit are
    checked even when greedy search (``beam_size`` 1) does not use them, so a bad value never passes silently.

    Raises:
        ValueError: ``beam_size`` below 1, ``length_penalty`` or ``max_len_a`` below 0, ``max_len_b`` below 0,
            or both length limits 0.
    """
    check_at_least(f"{prefix}beam_size", beam_size, 1, optional=True)
    for name, value in (("length_penalty", length_penalty), ("max_len_a", max_len_a)):
        if value is not None:
            check_between(f"{prefix}{name}", value, 0.0, float("inf"))
    check_at_least(f"{prefix}max_len_b", max_len_b, 0, optional=True)
    if max_len_a == 0 and max_len_b == 0:
        raise ValueError(
            f"{prefix}max_len_a=0 with {prefix}max_len_b=0 allows no target token (at most max_len_a * source "
            f"length + max_len_b); raise either"
        )


def check_sampling(temperature: float, top_k: int | None, top_p: float | None, prefix: str = "") -> None:
    """Raise ``ValueError`` naming the field (``prefix`` + its name) for a sampling setting out of range:
    ``temperature`` below 0 (0 is greedy search) or not finite, ``top_k < 1``, ``top_p`` outside ``(0, 1]``."""
    if not math.isfinite(temperature):
        raise ValueError(f"{prefix}temperature={temperature} is not valid; it must be a finite number >= 0 (0: greedy)")
    if temperature < 0:
        raise ValueError(f"{prefix}temperature={temperature} is not valid; it must be >= 0 (0: greedy)")
    if top_k is not None and top_k < 1:
        raise ValueError(f"{prefix}top_k={top_k} is not valid; it must be positive")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"{prefix}top_p={top_p} is not valid; it must be in (0, 1]")
