"""Greedy search and sampling (temperature, top-k, top-p), one token per hypothesis per step."""

from __future__ import annotations

import torch
from torch import Tensor

from zoo.decoding.steps import Step
from zoo.decoding.stopping import LaggedStop


def filter_logits(logits: Tensor, top_k: int | None = None, top_p: float | None = None) -> Tensor:
    """Set every token outside the allowed set to ``-inf``.

    Args:
        logits: ``(N, V)`` logits or log-probabilities.
        top_k: keep the ``top_k`` most likely tokens (ties with the ``top_k``-th are kept too; Fan et al. 2018).
        top_p: keep the smallest set of most likely tokens whose probability reaches ``top_p``, at least one
            (nucleus sampling, Holtzman et al. 2020).

    Returns:
        ``(N, V)``, the same values where allowed, ``-inf`` elsewhere.
    """
    if top_k is not None and top_k < logits.shape[-1]:
        kth = logits.topk(top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1.0:
        ordered, order = logits.sort(dim=-1, descending=True)
        probs = ordered.softmax(dim=-1)
        before = probs.cumsum(dim=-1) - probs  # the mass of the more likely tokens
        drop = before >= top_p
        drop[..., 0] = False
        logits = logits.masked_fill(torch.zeros_like(drop).scatter(-1, order, drop), float("-inf"))
    return logits


def next_token(
    log_probs: Tensor,
    temperature: float = 0.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> Tensor:
    """``(N, V)`` log-probabilities -> ``(N,)`` next tokens: the most likely one (``temperature=0``, greedy)
    or a sample from softmax(log_probs / temperature) restricted by :func:`filter_logits`."""
    if temperature == 0:
        return log_probs.argmax(dim=-1)
    probs = filter_logits(log_probs / temperature, top_k, top_p).softmax(dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(1)


@torch.no_grad()
def sample(
    step: Step,
    start: Tensor,
    max_new_tokens: int | Tensor,
    eos_id: int,
    pad_id: int,
    temperature: float = 0.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    max_steps: int | None = None,
) -> Tensor:
    """Extend each row of ``start`` one token at a time until ``eos_id`` or its limit.

    The loop never reads the device to decide whether to go on: whether every row has finished is known a few
    steps late (:class:`zoo.decoding.stopping.LaggedStop`), and the steps after it are cut off, so the ids are
    those of a loop that checks at every step.

    Args:
        step: the model (:mod:`zoo.decoding.steps`), built for ``N`` rows.
        start: ``(N, P)`` the first input of each row (``<bos>``, or a prompt).
        max_new_tokens: the most tokens generated per row: an int, or ``(N,)`` per row.
        eos_id: ends a row (kept in the output).
        pad_id: fills a row after its end.
        temperature, top_k, top_p, generator: see :func:`next_token`; ``temperature=0`` is greedy search.
        max_steps: at least ``max(max_new_tokens)``, known on the host (e.g. from the batch's shape), so that a
            per-row ``max_new_tokens`` is not read from the device; ``None``: ``max(max_new_tokens)``, read.

    Returns:
        ``(N, T)`` generated ids, ``T <= max_steps``: where every row had finished before ``max_steps``,
        the columns after the step that finished the last one are padding (cut off unless the loop reached
        ``max_steps`` less than :data:`zoo.decoding.stopping.LAG` steps after it).
    """
    rows = start.shape[0]
    limit = torch.as_tensor(max_new_tokens, device=start.device).expand(rows)
    if max_steps is None:
        max_steps = max_new_tokens if isinstance(max_new_tokens, int) else int(limit.max()) if rows else 0
    finished, stop = limit <= 0, LaggedStop(start.device)
    tokens, generated = start, []
    for position in range(max_steps if rows else 0):
        chosen = next_token(step(tokens), temperature, top_k, top_p, generator).masked_fill(finished, pad_id)
        generated.append(chosen)
        finished = finished | (chosen == eos_id) | (limit <= position + 1)
        if stop.after(position, finished):
            break
        tokens = chosen[:, None]
    if not generated:
        return start.new_zeros(rows, 0)
    ids = torch.stack(generated, dim=1)  # the steps after every row had finished are padding only: cut
    return ids if stop.finished_at is None else ids[:, : stop.finished_at + 1]


def strip_after_eos(ids: Tensor, eos_id: int, max_len: int | Tensor | None = None) -> list[list[int]]:
    """``(B, T)`` ids from :func:`sample` -> per row, the ids before the first ``eos_id``, and at most
    ``max_len`` of them (an int or ``(B,)``: the padding after a row cut at its limit goes)."""
    limits = [None] * len(ids) if max_len is None else torch.as_tensor(max_len).expand(len(ids)).tolist()
    rows = []
    for row, limit in zip(ids.tolist(), limits, strict=True):
        rows.append(row[: row.index(eos_id)] if eos_id in row else row[:limit])
    return rows
