"""Incremental decoding speed: the zoo's greedy search and beam search (:mod:`zoo.decoding`) with the key/value
cache, and the same searches recomputing every position at every step, on the decoder-only model."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from torch import Tensor

from benchmarks.cases import LANGUAGE_MODEL_KNOBS, Shape
from benchmarks.machine import synchronize
from zoo.decoding import DecoderOnlyStep, beam_search, sample
from zoo.decoding.steps import log_probabilities
from zoo.nn import DecoderOnly, TransformerConfig

NEVER = -1  # an end-of-sequence id no model produces: every search runs to its full length


class RecomputingStep:
    """A :class:`zoo.decoding.Step` without a cache: each call runs the model over the whole history."""

    def __init__(self, model: DecoderOnly) -> None:
        self.model, self.history = model, None

    def __call__(self, tokens: Tensor) -> Tensor:
        self.history = tokens if self.history is None else torch.cat([self.history, tokens], dim=1)
        return log_probabilities(self.model(self.history)[:, -1])

    def reorder(self, index: Tensor) -> None:
        self.history = self.history.index_select(0, index)


@dataclass
class Decoded:
    """One decoding row: ``tokens`` new tokens (of the output, not counting beams) in ``seconds``."""

    name: str
    tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds


def _search(model: DecoderOnly, prompt: Tensor, new_tokens: int, beam_size: int, cached: bool) -> None:
    step = DecoderOnlyStep(model) if cached else RecomputingStep(model)
    if beam_size == 1:
        sample(step, prompt, new_tokens, NEVER, 0)
    else:
        beam_search(step, prompt, beam_size, new_tokens, NEVER)


def measure_decoding(
    shape: Shape, prompt_length: int, new_tokens: int, device: torch.device, autocast
) -> list[Decoded]:
    """Greedy and beam-4 search of ``new_tokens`` tokens after ``shape.batch`` prompts of ``prompt_length``
    tokens, with and without the cache (one untimed short search first)."""
    torch.manual_seed(0)
    config = TransformerConfig(
        d_model=shape.d_model, n_heads=shape.heads, d_ff=shape.d_ff, dropout=0.0,
        max_len=prompt_length + new_tokens, **LANGUAGE_MODEL_KNOBS,
    )  # fmt: skip
    model = DecoderOnly(config, shape.vocab, shape.layers).to(device).eval()
    prompt = torch.randint(1, shape.vocab, (shape.batch, prompt_length), device=device)
    rows = []
    with torch.no_grad(), autocast():
        _search(model, prompt, 4, 1, True)
        for beam_size in (1, 4):
            for cached in (True, False):
                synchronize(device)
                start = time.perf_counter()
                _search(model, prompt, new_tokens, beam_size, cached)
                synchronize(device)
                search = "greedy" if beam_size == 1 else f"beam {beam_size}"
                name = f"{search}, {'cache' if cached else 'recomputed'}"
                rows.append(Decoded(name, shape.batch * new_tokens, time.perf_counter() - start))
    return rows
