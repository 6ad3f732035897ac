"""How a Hugging Face family's parameters become a zoo backbone's, and back: each :class:`Rule` names one zoo
parameter and the Hugging Face parameters it is made of (stacked along the rows, as attention's W^Q, W^K, W^V
in zoo's ``in_proj``), each with a transform and its inverse (Conv1D's transposed weights, the rotary layout)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from zoo.weights.errors import WeightsError

Transform = tuple[Callable[[Tensor], Tensor], Callable[[Tensor], Tensor]]  # to zoo, to Hugging Face
COPY: Transform = (lambda t: t, lambda t: t)
TRANSPOSE: Transform = (lambda t: t.t(), lambda t: t.t())  # GPT-2's Conv1D keeps weights as (in, out)
ROW: Transform = (lambda t: t.reshape(-1), lambda t: t.reshape(1, -1))  # Marian's (1, V) final_logits_bias


def rotary_layout(heads: int, d_head: int) -> Transform:
    """The rows of W^Q or W^K from Hugging Face's rotary layout (channel ``i`` paired with ``i + d_head / 2``,
    ``rotate_half``) to zoo's (channels ``2i`` and ``2i + 1``, Su et al. 2021, eq. 34), per head, and back:
    the same permutation of queries and keys leaves every q . k unchanged."""
    half = torch.arange(d_head // 2)
    order = torch.stack([half, half + d_head // 2], dim=1).flatten()
    inverse = torch.argsort(order)

    def permute(t: Tensor, index: Tensor) -> Tensor:
        return t.reshape(heads, d_head, *t.shape[1:])[:, index].reshape(t.shape)

    return (lambda t: permute(t, order), lambda t: permute(t, inverse))


@dataclass
class Rule:
    """One zoo parameter ``zoo`` from the Hugging Face parameters ``hf`` (stacked along dim 0 in that order),
    each through its ``transforms`` entry (one for all when a single one is given); ``sizes``: the rows of
    each, to split a stacked parameter back."""

    zoo: str
    hf: tuple[str, ...]
    transforms: tuple[Transform, ...] = (COPY,)
    sizes: tuple[int, ...] = ()

    def transform(self, index: int) -> Transform:
        return self.transforms[index if len(self.transforms) > 1 else 0]

    def to_zoo(self, state: dict[str, Tensor]) -> Tensor:
        parts = [self.transform(i)[0](state[name]) for i, name in enumerate(self.hf)]
        return parts[0] if len(parts) == 1 else torch.cat(parts)

    def to_hf(self, tensor: Tensor) -> dict[str, Tensor]:
        parts = tensor.split(list(self.sizes)) if len(self.hf) > 1 else [tensor]
        return {name: self.transform(i)[1](part) for i, (name, part) in enumerate(zip(self.hf, parts, strict=True))}


def linear(zoo: str, hf: str, bias: bool = True, transform: Transform = COPY) -> list[Rule]:
    """The weight (and bias) of a linear layer or a norm ``zoo`` from ``hf``."""
    rules = [Rule(f"{zoo}.weight", (f"{hf}.weight",), (transform,))]
    return rules + [Rule(f"{zoo}.bias", (f"{hf}.bias",))] if bias else rules


def stacked(
    zoo: str, hf: list[str], sizes: tuple[int, ...], bias: bool, transforms: tuple[Transform, ...] = (COPY,)
) -> list[Rule]:
    """One stacked zoo linear layer (attention's ``in_proj``, SwiGLU's gate and value) from several, of
    ``sizes`` rows each."""
    rules = [Rule(f"{zoo}.weight", tuple(f"{name}.weight" for name in hf), transforms, sizes)]
    return rules + [Rule(f"{zoo}.bias", tuple(f"{name}.bias" for name in hf), transforms, sizes)] if bias else rules


def without_prefix(state: dict[str, Tensor], prefix: str) -> dict[str, Tensor]:
    """``state`` with ``prefix`` taken off the names that carry it: a model saved with its head keeps the
    backbone under ``transformer.`` (``model.``, ``bert.``) beside the head's ``lm_head.weight``."""
    return {name.removeprefix(prefix): tensor for name, tensor in state.items()}


def with_aliases(state: dict[str, Tensor], aliases: dict[str, tuple[str, ...]]) -> dict[str, Tensor]:
    """``state`` with each name of ``aliases`` it lacks taken from the first of its other names it has."""
    full = dict(state)
    for name, others in aliases.items():
        found = [other for other in others if other in state]
        if name not in full and found:
            full[name] = state[found[0]]
    return full


def apply_rules(rules: list[Rule], state: dict[str, Tensor]) -> dict[str, Tensor]:
    """The zoo parameters of ``rules`` from the Hugging Face ``state``.

    Raises:
        WeightsError: naming the first Hugging Face parameter missing from ``state``.
    """
    missing = [name for rule in rules for name in rule.hf if name not in state]
    if missing:
        raise WeightsError(
            f"the weights lack {missing[0]!r} ({len(missing)} parameters missing): not a complete checkpoint of "
            f"this family"
        )
    return {rule.zoo: rule.to_zoo(state) for rule in rules}
