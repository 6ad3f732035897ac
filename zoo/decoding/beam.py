"""Beam search over a :class:`zoo.decoding.steps.Step`, batched over sentences and beams, with the GNMT
length penalty (Wu et al. 2016, section 7, eq. 14). Its bookkeeping stays on the device (the finished
hypotheses in :class:`zoo.decoding.finished.Finished`, when to stop in :class:`zoo.decoding.stopping.LaggedStop`),
so that no step waits for the device: what it found is read once, when the caller asks for it."""

from __future__ import annotations

import torch
from torch import Tensor

from zoo.decoding.finished import NONE, Finished, Hypothesis
from zoo.decoding.steps import Step
from zoo.decoding.stopping import LaggedStop


def length_penalty(length: int | Tensor, alpha: float) -> float | Tensor:
    """lp(Y) = (5 + |Y|)^alpha / (5 + 1)^alpha (Wu et al. 2016, eq. 14); ``alpha=0`` gives 1 (no penalty)."""
    return ((5 + length) / 6) ** alpha


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
    """The ``n_best`` highest-scoring hypotheses of each sentence, read from the device: :func:`search`'s, as
    lists (the same arguments; ``max_len``'s largest value is read for the loop's bound).

    Returns:
        Per sentence, its ``n_best`` hypotheses (fewer if fewer were found), best first, all distinct.
    """
    return search(step, start, beam_size, max_len, eos_id, alpha, n_best).hypotheses()


@torch.no_grad()
def search(
    step: Step,
    start: Tensor,
    beam_size: int,
    max_len: int | Tensor,
    eos_id: int,
    alpha: float = 0.0,
    n_best: int = 1,
    max_steps: int | None = None,
) -> Finished:
    """The ``n_best`` highest-scoring hypotheses of each sentence, found with beams of ``beam_size``, left on the
    device.

    At each step the ``beam_size`` best one-token extensions of a sentence's open beams are kept; an
    extension ending in ``<eos>`` is finished and frees its slot, which the next step refills (so
    ``beam_size=1`` is greedy search). A sentence stops when no open beam is left or none can beat its
    ``n_best``-th finished hypothesis any more (log-probabilities only fall, and the length penalty grows with
    the length, so ``log_prob / lp(max_len)`` bounds what an open beam can still reach); at its length limit
    its open beams are finished as they are. The loop learns that every sentence has stopped a few steps late
    (:class:`zoo.decoding.stopping.LaggedStop`); the steps after it find nothing.

    Args:
        step: the model, built for ``B * beam_size`` rows (sentence ``b``'s beams in rows
            ``b * beam_size ...``).
        start: ``(B, P)`` the first input of each sentence (``<bos>``, or a prompt).
        beam_size: ``K``, hypotheses kept open per sentence.
        max_len: the most tokens per hypothesis, ``<eos>`` included: an int or ``(B,)``.
        eos_id: the end of a hypothesis.
        alpha: the length penalty's ``alpha`` (0: none; Wu et al. 2016 use 0.6 to 0.7).
        n_best: how many hypotheses to keep per sentence (at most ``beam_size``).
        max_steps: at least the largest ``max_len``, known on the host (:func:`zoo.decoding.sequences.longest`);
            ``None``: read from ``max_len``.

    Returns:
        The finished hypotheses, best first per sentence, all distinct (:meth:`Finished.hypotheses` reads them).

    Raises:
        ValueError: for ``beam_size < 1``, ``n_best`` outside ``1 ... beam_size`` or ``alpha < 0``.
    """
    _check(beam_size, n_best, alpha)
    sentences, device = start.shape[0], start.device
    limit = torch.as_tensor(max_len, device=device).expand(sentences)
    steps = _bound(max_len, max_steps, sentences)
    # float64 sums, so that a long hypothesis's score is its log-probability to well below 1e-4
    scores = torch.full((sentences, beam_size), NONE, device=device, dtype=torch.float64)
    scores[:, 0] = 0.0  # the beams start identical: expand only the first
    best_possible = length_penalty(limit.double().clamp(min=1), alpha)
    finished, stop = Finished(sentences, n_best, steps, eos_id, start), LaggedStop(device)
    history = start.new_zeros(sentences * beam_size, 0)
    tokens = start.repeat_interleave(beam_size, dim=0)
    for length in range(1, steps + 1):
        scores, origin, token = _extend(scores, step(tokens))
        history = torch.cat([history.index_select(0, origin), token[:, None]], dim=1)
        ended = (token.view(sentences, -1) == eos_id) & scores.isfinite()
        cut = (limit[:, None] <= length) & scores.isfinite() & ~ended
        finished.add(history.view(sentences, beam_size, -1), scores, ended | cut, ended, length_penalty(length, alpha))
        scores = scores.masked_fill(ended | cut, NONE)
        done = _done(scores, best_possible, finished.nth_best)
        scores = scores.masked_fill(done[:, None], NONE)
        if stop.after(length - 1, done):
            finished.trim(stop.finished_at + 1)
            break
        step.reorder(origin)
        tokens = token[:, None]
    return finished


def _extend(scores: Tensor, log_probs: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The ``K`` best one-token extensions of each sentence's beams: ``(B, K)`` scores, ``(B * K,)`` the row each
    extends, and ``(B * K,)`` its token, from ``(B, K)`` scores and ``(B * K, V)`` log-probabilities."""
    sentences, beam_size = scores.shape
    vocab = log_probs.shape[-1]
    candidates = (scores.view(-1, 1) + log_probs.to(scores.dtype)).view(sentences, -1)
    scores, flat = candidates.topk(beam_size, dim=1)
    origin = (flat // vocab + torch.arange(sentences, device=scores.device)[:, None] * beam_size).view(-1)
    return scores, origin, (flat % vocab).view(-1)


def _bound(max_len: int | Tensor, max_steps: int | None, sentences: int) -> int:
    """The loop's bound, on the host: ``max_steps``, an int ``max_len``, or the largest of a tensor's (a read)."""
    if not sentences:
        return 0
    if max_steps is not None:
        return max_steps
    return max_len if isinstance(max_len, int) else int(torch.as_tensor(max_len).max())


def _check(beam_size: int, n_best: int, alpha: float) -> None:
    if beam_size < 1:
        raise ValueError(f"beam_size={beam_size} is not valid; it must be at least 1")
    if not 1 <= n_best <= beam_size:
        raise ValueError(f"n_best={n_best} is not valid; it must be between 1 and beam_size={beam_size}")
    if alpha < 0:
        raise ValueError(f"length_penalty={alpha} is not valid; it must be at least 0 (Wu et al. 2016: 0.6)")


def _done(scores: Tensor, best_possible: Tensor, nth_best: Tensor) -> Tensor:
    """``(B,)`` bool: sentences with no open beam, or whose open beams cannot beat their ``n_best``-th best."""
    open_best = scores.max(dim=1).values
    reachable = open_best / best_possible  # log-probs are <= 0, so the largest penalty is the kindest
    return ~open_best.isfinite() | (reachable <= nth_best)
