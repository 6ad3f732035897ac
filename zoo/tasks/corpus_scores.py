"""Corpus-level sacreBLEU and chrF over every rank's sentences, with sacreBLEU's signature (Post 2018)."""

from __future__ import annotations

import torch.distributed as dist
from sacrebleu.metrics import BLEU, CHRF


class CorpusScores:
    """Collect detokenised hypotheses and references, then score the whole corpus with sacreBLEU itself
    (cased, 13a tokenisation, exponential smoothing: its defaults) and chrF (Popović 2015), so that the
    signature describes exactly what was computed.

    Attributes:
        signature: sacreBLEU's BLEU signature after :meth:`compute`, e.g.
            ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``; ``None`` before.
    """

    def __init__(self) -> None:
        self.hypotheses: list[str] = []
        self.references: list[str] = []
        self.signature: str | None = None

    def update(self, hypotheses: list[str], references: list[str]) -> None:
        self.hypotheses += hypotheses
        self.references += references

    def compute(self) -> tuple[float, float]:
        """BLEU and chrF (both 0-100) of the sentences of every rank, then reset; sets :attr:`signature`."""
        pairs = list(zip(self.hypotheses, self.references, strict=True))
        if dist.is_available() and dist.is_initialized():
            gathered: list = [None] * dist.get_world_size()
            dist.all_gather_object(gathered, pairs)
            pairs = [pair for part in gathered for pair in part]
        hypotheses, references = [h for h, _ in pairs], [[r for _, r in pairs]]
        bleu, chrf = BLEU(), CHRF()
        scores = bleu.corpus_score(hypotheses, references).score, chrf.corpus_score(hypotheses, references).score
        self.signature = str(bleu.get_signature())
        self.hypotheses, self.references = [], []
        return scores
