"""Beam search over a :class:`zoo.decoding.steps.Step`, batched over sentences and beams, with the GNMT
length penalty (Wu et al. 2016, section 7, eq. 14)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from zoo.decoding.steps import Step


def length_penalty(length: int | Tensor, alpha: float) -> float | Tensor:
    """lp(Y) = (5 + |Y|)^alpha / (5 + 1)^alpha (Wu et al. 2016, eq. 14); ``alpha=0`` gives 1 (no penalty)."""
    return ((5 + length) / 6) ** alpha


@dataclass
class Hypothesis:
    """One finished hypothesis.

    Attributes:
        tokens: the generated ids, without ``<eos>``.
        log_prob: log p(tokens, <eos> | input): the sum of the log-probabilities of its tokens, ``<eos>``
            included when it ended with one (``ended``), before the length penalty.
        score: ``log_prob / length_penalty(len(tokens) + ended, alpha)``, which ranks hypotheses.
        ended: whether it ended with ``<eos>`` (else it was cut at the length limit).
    """

    tokens: list[int]
    log_prob: float
    score: float
    ended: bool


@torch.no_grad()
def beam_search(
    step: Step,
    start: Tensor,
    beam_size: int,
    max_len: int | Tensor,
    eos_id: int,
    alpha: float = 0.0,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """The ``n_best`` highest-scoring hypotheses of each sentence, found with beams of ``beam_size``.

    At each step the ``beam_size`` best one-token extensions of a sentence's open beams are kept; an
    extension ending in ``<eos>`` is finished and frees its slot, which the next step refills (so
    ``beam_size=1`` is greedy search). A sentence stops when no open beam is left or none can beat its
    ``n_best``-th finished hypothesis any more (log-probabilities only fall, and the length penalty grows with
    the length, so ``log_prob / lp(max_len)`` bounds what an open beam can still reach); at its length limit
    its open beams are finished as they are.

    Args:
        step: the model, built for ``B * beam_size`` rows (sentence ``b``'s beams in rows
            ``b * beam_size ...``).
        start: ``(B, P)`` the first input of each sentence (``<bos>``, or a prompt).
        beam_size: ``K``, hypotheses kept open per sentence.
        max_len: the most tokens per hypothesis, ``<eos>`` included: an int or ``(B,)``.
        eos_id: the end of a hypothesis.
        alpha: the length penalty's ``alpha`` (0: none; Wu et al. 2016 use 0.6 to 0.7).
        n_best: how many hypotheses to return per sentence (at most ``beam_size``).

    Returns:
        Per sentence, its ``n_best`` hypotheses (fewer if fewer were found), best first, all distinct.

    Raises:
        ValueError: for ``beam_size < 1``, ``n_best`` outside ``1 ... beam_size`` or ``alpha < 0``.
    """
    _check(beam_size, n_best, alpha)
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


def _check(beam_size: int, n_best: int, alpha: float) -> None:
    if beam_size < 1:
        raise ValueError(f"beam_size={beam_size} is not valid; it must be at least 1")
    if not 1 <= n_best <= beam_size:
        raise ValueError(f"n_best={n_best} is not valid; it must be between 1 and beam_size={beam_size}")
    if alpha < 0:
        raise ValueError(f"length_penalty={alpha} is not valid; it must be at least 0 (Wu et al. 2016: 0.6)")


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
