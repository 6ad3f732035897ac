"""Corpus-level sacreBLEU (cased, and lower-cased beside it), chrF and exact match over every rank's sentences,
with sacreBLEU's signature (Post 2018)."""

from __future__ import annotations

from typing import NamedTuple

import torch.distributed as dist
from sacrebleu.metrics import BLEU, CHRF

from zoo.tasks.pending_text import PendingText, texts


class Scores(NamedTuple):
    """The scores of one corpus: ``bleu`` (cased, 0-100), ``chrf`` (0-100), ``exact_match`` (0-1) and
    ``bleu_lowercase``, sacreBLEU's ``lowercase=True`` (0-100): the nearest to the lower-cased, tokenised BLEU of
    tutorials such as bentrevett/pytorch-seq2seq (they split with spaCy; sacreBLEU's 13a tokeniser splits
    punctuation alike but not every clitic, so the two differ by a little)."""

    bleu: float
    chrf: float
    exact_match: float
    bleu_lowercase: float


class CorpusScores:
    """Collect hypotheses and references, then score the whole corpus with sacreBLEU itself
    (cased, 13a tokenisation, exponential smoothing: its defaults) and chrF (Popović 2015), so that the
    signature describes exactly what was computed. Hypotheses may stay on the device as :class:`PendingText`
    until :meth:`compute`, so that no batch waits for the device to read its translations.

    Attributes:
        signatures: sacreBLEU's signatures of the scores after :meth:`compute`, by score: ``bleu`` (e.g.
            ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``) and ``bleu_lowercase`` (``case:lc``);
            empty before.
    """

    def __init__(self) -> None:
        self.batches: list[tuple[list[str] | PendingText, list[str]]] = []
        self.signatures: dict[str, str] = {}

    def __len__(self) -> int:
        """How many sentences were collected since the last :meth:`compute`."""
        return sum(len(references) for _, references in self.batches)

    def update(self, hypotheses: list[str] | PendingText, references: list[str]) -> None:
        """Add a batch: ``B`` detokenised hypotheses (or their ids, still on the device) and ``B`` references."""
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses for {len(references)} references")
        self.batches.append((hypotheses, list(references)))

    def compute(self) -> Scores:
        """BLEU and chrF (both 0-100), the share of exact matches (0-1, after stripping spaces) and lower-cased
        BLEU of the sentences of every rank, then reset; sets :attr:`signatures`."""
        batches, self.batches = self.batches, []
        pairs = [pair for found, references in batches for pair in zip(texts(found), references, strict=True)]
        if dist.is_available() and dist.is_initialized():
            gathered: list = [None] * dist.get_world_size()
            dist.all_gather_object(gathered, pairs)
            pairs = [pair for part in gathered for pair in part]
        hypotheses, references = [h for h, _ in pairs], [[r for _, r in pairs]]
        bleu, chrf, lowercase = BLEU(), CHRF(), BLEU(lowercase=True)
        exact = sum(h.strip() == r.strip() for h, r in pairs) / max(len(pairs), 1)
        scores = Scores(
            bleu.corpus_score(hypotheses, references).score,
            chrf.corpus_score(hypotheses, references).score,
            exact,
            lowercase.corpus_score(hypotheses, references).score,
        )
        self.signatures = {"bleu": str(bleu.get_signature()), "bleu_lowercase": str(lowercase.get_signature())}
        return scores
