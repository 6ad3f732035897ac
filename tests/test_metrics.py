"""The BLEU we log (torchmetrics, synchronised across ranks) is sacreBLEU's corpus BLEU."""

import json

import sacrebleu
from torchmetrics.text import SacreBLEUScore


def test_logged_bleu_equals_sacrebleu_on_real_text(data_dir):
    rows = [json.loads(line) for line in (data_dir / "multi30k" / "validation.jsonl").read_text().splitlines()]
    references = [row["en"] for row in rows[:200]]
    # hypotheses: every other reference with its second word dropped, a realistic mid-range BLEU
    hypotheses = [r if k % 2 else " ".join(r.split()[:1] + r.split()[2:]) for k, r in enumerate(references)]
    metric = SacreBLEUScore()
    metric.update(hypotheses[:100], [[r] for r in references[:100]])
    metric.update(hypotheses[100:], [[r] for r in references[100:]])
    expected = sacrebleu.corpus_bleu(hypotheses, [references]).score
    assert 10 < expected < 99
    assert abs(float(metric.compute()) * 100 - expected) < 1e-3
