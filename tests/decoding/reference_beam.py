"""A reference for beam search: the zoo's beam search as it was before its bookkeeping moved to the device,
collecting each step's finished hypotheses in Python lists and reading per sentence whether it is done (a read of
the device at every step). Kept as the test's naive reference; the product's is :mod:`zoo.decoding.beam`."""

from __future__ import annotations

import torch
from torch import Tensor

from zoo.decoding.beam import length_penalty
from zoo.decoding.finished import Hypothesis
from zoo.decoding.steps import Step


@torch.no_grad()
def reference_beam_search(
    step: Step,
    start: Tensor,
    beam_size: int,
    max_len: int | Tensor,
    eos_id: int,
    alpha: float = 0.0,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """:func:`zoo.decoding.beam.search`'s hypotheses, read as it goes (the same arguments, no checks)."""
    sentences, device = start.shape[0], start.device
    limit = torch.as_tensor(max_len, device=device).expand(sentences)
    # float64 sums, so that a long hypothesis's score is its log-probability to well below 1e-4
    scores = torch.full((sentences, beam_size), float("-inf"), device=device, dtype=torch.float64)
    scores[:, 0] = 0.0  # the beams start identical: expand only the first
    best_possible = length_penalty(limit.double().clamp(min=1), alpha)
    finished: list[list[Hypothesis]] = [[] for _ in range(sentences)]
    history = start.new_zeros(sentences * beam_size, 0)
    tokens = start.repeat_interleave(beam_size, dim=0)
    for length in range(1, int(limit.max()) + 1 if sentences else 0):
        log_probs = step(tokens)
        vocab = log_probs.shape[-1]
        candidates = (scores.view(-1, 1) + log_probs.to(scores.dtype)).view(sentences, -1)
        scores, flat = candidates.topk(beam_size, dim=1)
        origin = (flat // vocab + torch.arange(sentences, device=device)[:, None] * beam_size).view(-1)
        token = (flat % vocab).view(-1)
        history = torch.cat([history.index_select(0, origin), token[:, None]], dim=1)
        ended = (token.view(sentences, -1) == eos_id) & scores.isfinite()
        cut = (limit[:, None] <= length) & scores.isfinite() & ~ended
        _collect(finished, history, scores, ended, cut, alpha)
        scores = scores.masked_fill(ended | cut, float("-inf"))
        done = _done(finished, scores, best_possible, n_best)
        scores[done] = float("-inf")
        if done.all():
            break
        step.reorder(origin)
        tokens = token[:, None]
    return [sorted(found, key=lambda h: -h.score)[:n_best] for found in finished]


def _collect(
    finished: list[list[Hypothesis]], history: Tensor, scores: Tensor, ended: Tensor, cut: Tensor, alpha: float
) -> None:
    """Add the hypotheses that ended with ``<eos>`` or reached their limit at this step to ``finished``."""
    beam_size = scores.shape[1]
    for sentence, beam in (ended | cut).nonzero().tolist():
        row = history[sentence * beam_size + beam].tolist()
        with_eos = bool(ended[sentence, beam])
        tokens = row[:-1] if with_eos else row
        log_prob = float(scores[sentence, beam])
        score = log_prob / length_penalty(len(row), alpha)
        finished[sentence].append(Hypothesis(tokens, log_prob, score, with_eos))


def _done(finished: list[list[Hypothesis]], scores: Tensor, best_possible: Tensor, n_best: int) -> Tensor:
    """``(B,)`` bool: sentences with no open beam, or whose open beams cannot beat their ``n_best``-th best."""
    open_best = scores.max(dim=1).values.double()
    reachable = open_best / best_possible  # log-probs are <= 0, so the largest penalty is the kindest
    done = ~open_best.isfinite()
    for sentence, found in enumerate(finished):
        if len(found) >= n_best:
            nth = sorted((h.score for h in found), reverse=True)[n_best - 1]
            done[sentence] |= bool(reachable[sentence] <= nth)
    return done
