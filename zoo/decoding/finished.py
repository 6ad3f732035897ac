"""The finished hypotheses of a beam search, kept on the device: per sentence its ``n_best`` highest-scoring ones
so far, merged with each step's newly finished ones by a sort on the device, so that the search never reads the
device to know what it has found or whether a sentence is done (its :attr:`Finished.nth_best` is a tensor)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

NONE = float("-inf")  # the score of an empty slot: below every finished hypothesis's finite score


@dataclass
class Hypothesis:
    """One finished hypothesis, read from the device.

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


class Finished:
    """Per sentence, the ``n_best`` best finished hypotheses so far, best first; a tie keeps the one found first
    (at an earlier step, or at the same step in a lower beam).

    Args:
        sentences: ``B``.
        n_best: ``N``, hypotheses kept per sentence.
        steps: ``T``, the most tokens of a hypothesis, ``<eos>`` included.
        eos_id: fills each row of :attr:`ids` after its hypothesis (so the first ``<eos>`` of a row ends it, or its
            length limit does).
        like: a tensor on the search's device, of the ids' dtype.

    Attributes:
        ids: ``(B, N, T)`` each hypothesis's tokens, with its ``<eos>`` where it ended, then ``eos_id``.
        scores: ``(B, N)`` float64, length-penalised scores (``-inf`` for an empty slot).
        log_probs: ``(B, N)`` float64, log-probabilities.
        lengths: ``(B, N)`` tokens of each hypothesis, its ``<eos>`` included.
        ended: ``(B, N)`` bool, whether it ended with ``<eos>``.
    """

    def __init__(self, sentences: int, n_best: int, steps: int, eos_id: int, like: Tensor) -> None:
        self.eos_id = eos_id
        self.ids = like.new_full((sentences, n_best, steps), eos_id)
        self.scores = torch.full((sentences, n_best), NONE, dtype=torch.float64, device=like.device)
        self.log_probs = torch.full_like(self.scores, NONE)
        self.lengths = like.new_zeros((sentences, n_best))
        self.ended = torch.zeros((sentences, n_best), dtype=torch.bool, device=like.device)

    @property
    def nth_best(self) -> Tensor:
        """``(B,)`` the score of each sentence's ``n_best``-th best finished hypothesis (``-inf`` while it has
        fewer), which an open beam must beat to matter."""
        return self.scores[:, -1]

    def add(self, history: Tensor, log_probs: Tensor, new: Tensor, ended: Tensor, penalty: float | Tensor) -> None:
        """Merge the hypotheses that finished at this step.

        Args:
            history: ``(B, K, L)`` the beams' tokens so far (``L`` this step's length).
            log_probs: ``(B, K)`` float64, their log-probabilities.
            new: ``(B, K)`` bool, the beams that finished at this step (with ``<eos>`` or at their limit).
            ended: ``(B, K)`` bool, those that ended with ``<eos>``.
            penalty: the length penalty at length ``L`` (:func:`zoo.decoding.beam.length_penalty`).
        """
        sentences, beams, length = history.shape
        candidates = torch.nn.functional.pad(history, (0, self.ids.shape[2] - length), value=self.eos_id)
        scores = torch.cat([self.scores, (log_probs / penalty).masked_fill(~new, NONE)], dim=1)
        order = scores.sort(dim=1, descending=True, stable=True).indices[:, : self.scores.shape[1]]
        self.scores = scores.gather(1, order)
        self.log_probs = torch.cat([self.log_probs, log_probs], dim=1).gather(1, order)
        self.lengths = torch.cat([self.lengths, self.lengths.new_full((sentences, beams), length)], 1).gather(1, order)
        self.ended = torch.cat([self.ended, ended], dim=1).gather(1, order)
        ids = torch.cat([self.ids, candidates], dim=1)
        self.ids = ids.gather(1, order[:, :, None].expand(-1, -1, ids.shape[2]))

    def trim(self, steps: int) -> None:
        """Keep the first ``steps`` columns of :attr:`ids` (every hypothesis is at most that long)."""
        self.ids = self.ids[:, :, :steps]

    def hypotheses(self) -> list[list[Hypothesis]]:
        """Per sentence, its hypotheses, best first (fewer than ``n_best`` if fewer finished); reads the device."""
        columns = (self.ids, self.scores, self.log_probs, self.lengths, self.ended)
        found = []
        for ids, scores, log_probs, lengths, ended in zip(*(column.tolist() for column in columns), strict=True):
            kept = [i for i, score in enumerate(scores) if score != NONE]
            found.append([
                Hypothesis(ids[i][: lengths[i] - ended[i]], log_probs[i], scores[i], ended[i]) for i in kept
            ])  # fmt: skip
        return found


__all__ = ["Finished", "Hypothesis"]
