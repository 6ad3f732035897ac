"""Positional encodings, picked by ``model.pe``.

An encoding is a :class:`PositionalEncoding` with up to three hooks:

- :meth:`~PositionalEncoding.forward` adds position information to the token embeddings ``(B, T, D)``
  (``sinusoidal``, ``learned``);
- :attr:`~PositionalEncoding.rotary` is a module that rotates queries and keys inside self-attention
  (``rope``);
- :meth:`~PositionalEncoding.attention_bias` returns an additive bias of the self-attention scores for the
  query and key positions (``alibi``: :mod:`zoo.nn.alibi`; ``t5``: :mod:`zoo.nn.t5_bias`).

Where an instance lives is its ``scope``: ``"embedding"`` encodings are built once by the embedder (and shared
with a shared embedding); ``"stack"`` encodings are built once per Transformer stack, with the stack's
causality, and their bias is computed once per forward and shared by its layers. Cross-attention ignores
rotary and bias hooks alike: source and target positions are not comparable.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from functools import partial
from typing import ClassVar

import torch
from torch import Tensor, nn

from zoo.registry import POSITIONAL_ENCODINGS

# How the zoo calls each hook (self first): the arguments of a trial call, and how they are named.
ROPE_THETA = 10000.0  # the base of rotary angles (Su et al. 2021, eq. 34), model.rope_theta's default
HOOK_CALLS = {"forward": ((None, 0), "x, start"), "attention_bias": ((1, 1, 0), "query_len, key_len, offset")}


def checked_shape(encoding: nn.Module, hook: str, result: Tensor | None, expected: tuple[int, ...]) -> Tensor | None:
    """``result`` of ``encoding.<hook>`` if it is ``None`` or of shape ``expected``.

    Raises:
        ValueError: naming the class, the hook and both shapes, where the hook is called.
    """
    if result is not None and tuple(result.shape) != expected:
        raise ValueError(
            f"{type(encoding).__name__}.{hook} returned a tensor of shape {tuple(result.shape)}, not {expected} "
            f"(see zoo.nn.positional.PositionalEncoding.{hook})"
        )
    return result


class PositionalEncoding(nn.Module):
    """Base class: no position information (``pe=none``); subclasses override one hook.

    Args:
        d_model: ``D``, the model width.
        n_heads: ``H``, the number of attention heads (used by rotary encodings and attention biases).
        max_len: the longest sequence a learned table holds, in tokens.
        causal: whether the stack it serves is causal (a decoder); attention biases may differ.
    """

    scope: ClassVar[str] = "embedding"  # or "stack": one instance per stack, for attention_bias
    length_limited: ClassVar[bool] = False  # True: no position at or beyond max_len (checked before training)

    def __init__(self, d_model: int, n_heads: int, max_len: int, causal: bool = False) -> None:
        super().__init__()
        self.d_model, self.n_heads, self.max_len, self.causal = d_model, n_heads, max_len, causal

    @classmethod
    def from_config(cls, config, causal: bool = False) -> PositionalEncoding:
        """The encoding of a :class:`zoo.nn.TransformerConfig` (``d_model``, ``n_heads``, ``max_len``); an encoding
        with a knob of its own (rope's ``rope_theta``) reads it here."""
        return cls(config.d_model, config.n_heads, config.max_len, causal=causal)

    def __init_subclass__(cls, **kwargs) -> None:
        """Refuse, when the class is defined, a hook its ``scope`` never calls: the embedder calls ``forward``
        and ``rotary`` of an ``"embedding"`` encoding, a stack calls ``attention_bias`` of a ``"stack"`` one.

        Raises:
            TypeError: naming the class, the hook and the scope it needs.
        """
        super().__init_subclass__(**kwargs)
        if cls.scope not in ("embedding", "stack"):
            raise TypeError(f"{cls.__name__}.scope={cls.scope!r} is not valid; choose 'embedding' or 'stack'")
        needs = {"attention_bias": "stack", "forward": "embedding", "rotary": "embedding"}
        for hook, scope in needs.items():
            if getattr(cls, hook) is not getattr(PositionalEncoding, hook) and cls.scope != scope:
                raise TypeError(
                    f"{cls.__name__} overrides {hook}, which is called only for an encoding of scope={scope!r}; "
                    f"set scope = {scope!r} (its scope is {cls.scope!r})"
                )
        for hook, (arguments, shown) in HOOK_CALLS.items():
            method = getattr(cls, hook)
            if method is not getattr(PositionalEncoding, hook):
                try:
                    inspect.signature(method).bind(None, *arguments)
                except TypeError:
                    raise TypeError(
                        f"{cls.__name__}.{hook}{inspect.signature(method)} cannot be called as {hook}({shown}), "
                        f"as the zoo calls it"
                    ) from None

    @property
    def rotary(self) -> nn.Module | None:
        """A module ``(B, H, T, D/H), start -> (B, H, T, D/H)`` applied to queries and keys, or ``None``."""
        return None

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        """Add position information to embeddings.

        Args:
            x: ``(B, T, D)`` embeddings of positions ``start, ..., start + T - 1``.
            start: the absolute position of ``x[:, 0]`` (non-zero during incremental decoding).

        Returns:
            ``(B, T, D)``.
        """
        return x

    def attention_bias(self, query_len: int, key_len: int, offset: int = 0) -> Tensor | None:
        """An additive bias of the self-attention scores (after the 1/sqrt(d_k) scaling), or ``None``.

        Args:
            query_len: ``T``, queries at positions ``offset, ..., offset + T - 1``.
            key_len: ``S``, keys at positions ``0, ..., S - 1`` (cached keys included).
            offset: the position of the first query (the number of cached positions).

        Returns:
            ``(1, H, T, S)``, or ``None`` for no bias.
        """
        return None


POSITIONAL_ENCODINGS.register("none", synonyms=("nope", "nopos", "no_pe", "null_pe"))(PositionalEncoding)


def sinusoid_table(
    length: int, d_model: int, start: int = 0, dtype: torch.dtype = torch.float32, device: torch.device | None = None
) -> Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i / d_model)), PE(pos, 2i + 1) = cos(pos / 10000^(2i / d_model))
    (Vaswani et al. 2017, section 3.5). An odd ``d_model`` keeps the sine of its last pair only.

    Args:
        length: ``T``, the number of positions.
        d_model: ``D``.
        start: the first position.
        dtype: of the result (computed in float64).
        device: where it is computed (``None``: the default device).

    Returns:
        ``(T, D)``.
    """
    position = torch.arange(start, start + length, dtype=torch.float64, device=device)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64, device=device)
    angle = position / torch.pow(10000.0, two_i / d_model)
    table = torch.zeros(length, d_model, dtype=torch.float64, device=device)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.to(dtype)


class PositionTable:
    """Rows ``start ... start + T - 1`` of a table that depends on the position only (sinusoids, rotary
    angles): computed once in float64 by ``make(length, device=device)`` (``(length, ...)``), kept per device
    and dtype, and grown (doubled) when a longer sequence comes, instead of being rebuilt at every forward pass.

    Inside ``torch.compile`` the rows are computed in the graph instead: a table cached (or grown) while
    tracing would change what the graph's guards check (the cache's keys, its length against ``T``), and the
    next call would compile another graph (:mod:`zoo.tasks.compiling`)."""

    def __init__(self, make: Callable[..., Tensor], initial_length: int = 128) -> None:
        self.make, self.initial_length = make, initial_length
        self.tables: dict[tuple[torch.device, torch.dtype], Tensor] = {}

    def rows(self, start: int, length: int, device: torch.device, dtype: torch.dtype) -> Tensor:
        """``(T, ...)`` in ``dtype`` on ``device``."""
        if torch.compiler.is_compiling():
            return self.make(start + length, device=device)[start:].to(dtype)
        table = self.tables.get((device, dtype))
        if table is None or len(table) < start + length:
            size = max(start + length, self.initial_length, 2 * (0 if table is None else len(table)))
            table = self.tables[(device, dtype)] = self.make(size).to(device, dtype)
        return table[start : start + length]


@POSITIONAL_ENCODINGS.register("sinusoidal", synonyms=("sin", "sine", "sinusoid", "sinusoids", "fixed", "vaswani"))
class SinusoidalPositionalEncoding(PositionalEncoding):
    """Fixed sinusoids added to the embeddings (Vaswani et al. 2017, section 3.5); any length works."""

    def __init__(self, d_model: int, n_heads: int, max_len: int, causal: bool = False) -> None:
        super().__init__(d_model, n_heads, max_len, causal)
        self._table = PositionTable(partial(sinusoid_table, d_model=d_model, dtype=torch.float64))

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        return x + self._table.rows(start, x.shape[1], x.device, x.dtype)


@POSITIONAL_ENCODINGS.register("learned", synonyms=("learnable", "learned_absolute", "trainable", "embedding"))
class LearnedPositionalEncoding(PositionalEncoding):
    """A learned embedding per absolute position, ``max_len`` of them (Gehring et al. 2017; Vaswani et al.
    2017, section 3.5 and Table 3, row E).

    Raises:
        ValueError: in ``forward``, for a sequence that reaches past ``max_len`` positions.
    """

    length_limited = True

    def __init__(self, d_model: int, n_heads: int, max_len: int, causal: bool = False) -> None:
        super().__init__(d_model, n_heads, max_len, causal)
        self.table = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.table.weight, std=0.02)

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        end = start + x.shape[1]
        if end > self.max_len:
            raise ValueError(
                f"a sequence of {end} tokens is longer than model.max_len={self.max_len} of the learned "
                f"positional encoding; raise model.max_len or use model.pe={unlimited_encodings()}"
            )
        return x + self.table(torch.arange(start, end, device=x.device))


def rotary_angles(
    length: int,
    d_head: int,
    function: Callable[[Tensor], Tensor] = torch.cos,
    device: torch.device | None = None,
    theta: float = ROPE_THETA,
) -> Tensor:
    """``(T, d_head / 2)`` float64 on ``device``: ``function(pos * theta^(-2i / d_head))`` for positions
    ``0 ... T - 1`` (Su et al. 2021, eq. 34, where ``theta`` is 10000; Llama 3 uses 500000)."""
    position = torch.arange(length, dtype=torch.float64, device=device)[:, None]
    two_i = torch.arange(0, d_head, 2, dtype=torch.float64, device=device)
    return function(position * torch.pow(float(theta), -two_i / d_head))


def unlimited_encodings() -> str:
    """The registered encodings with a position for any length, for messages: ``"sinusoidal, rope or alibi"``."""
    names = [name for name in POSITIONAL_ENCODINGS.names() if not POSITIONAL_ENCODINGS.get(name).length_limited]
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]


class Rotation(nn.Module):
    """Rotates each pair of channels (2i, 2i + 1) of a head by the angle pos * theta^(-2i / d_head)
    (Su et al. 2021, RoFormer, eq. 34: theta = 10000), so that q . k depends on the relative position only."""

    def __init__(self, d_head: int, theta: float = ROPE_THETA) -> None:
        super().__init__()
        self.d_head, self.theta = d_head, theta
        self._cos = PositionTable(partial(rotary_angles, d_head=d_head, function=torch.cos, theta=theta))
        self._sin = PositionTable(partial(rotary_angles, d_head=d_head, function=torch.sin, theta=theta))

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        """``(B, H, T, d_head)`` at positions ``start, ...`` -> the same shape, rotated."""
        length = x.shape[2]
        cos = self._cos.rows(start, length, x.device, x.dtype)
        sin = self._sin.rows(start, length, x.device, x.dtype)
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


@POSITIONAL_ENCODINGS.register("rope", synonyms=("rotary", "rotary_embedding", "rotary_embeddings", "roformer"))
class RotaryPositionalEncoding(PositionalEncoding):
    """Rotary position embedding (Su et al. 2021, RoFormer): queries and keys of self-attention are rotated
    by their position; nothing is added to the embeddings. Any length works.

    Args:
        theta: the base of the angles, ``model.rope_theta`` (Su et al. 2021: 10000; Llama 3: 500000, whose larger
            base turns the slowest pairs more slowly, for longer contexts).

    Raises:
        ValueError: if the head width ``d_model / n_heads`` is odd (channels are rotated in pairs).
    """

    def __init__(
        self, d_model: int, n_heads: int, max_len: int, causal: bool = False, theta: float = ROPE_THETA
    ) -> None:
        super().__init__(d_model, n_heads, max_len, causal)
        d_head = d_model // n_heads
        if d_head % 2:
            raise ValueError(
                f"model.pe='rope' needs an even head width, but model.d_model={d_model} / "
                f"model.n_heads={n_heads} = {d_head}; change d_model or n_heads"
            )
        self._rotation = Rotation(d_head, theta)

    @classmethod
    def from_config(cls, config, causal: bool = False) -> RotaryPositionalEncoding:
        return cls(config.d_model, config.n_heads, config.max_len, causal=causal, theta=config.rope_theta)

    @property
    def rotary(self) -> nn.Module:
        return self._rotation


def embedding_scale(d_model: int, scale_embedding: bool) -> float:
    """The factor sqrt(d_model) applied to token embeddings (Vaswani et al. 2017, section 3.4), or 1."""
    return math.sqrt(d_model) if scale_embedding else 1.0
