"""Validation and test BLEU are one computation, sacreBLEU's corpus BLEU with its defaults (exponential
smoothing included), over every batch and every rank's sentences."""

import json
import os

import pytest
import sacrebleu
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torchmetrics.text import SacreBLEUScore

from tests.cli.helpers import CONFIGS, TINY_MODEL, read_run, small_copy
from zoo.cli.main import main
from zoo.tasks.corpus_scores import CorpusScores
from zoo.tasks.pending_text import texts
from zoo.tasks.translation import TranslationTask


def _references(data_dir, count: int) -> list[str]:
    rows = (data_dir / "multi30k" / "validation.jsonl").read_text().splitlines()[:count]
    return [json.loads(line)["en"] for line in rows]


def test_corpus_scores_over_batches_equal_sacrebleu_where_smoothing_matters(data_dir):
    references = _references(data_dir, 60)
    # each reference with "so" after every second word: unigram to trigram matches and no 4-gram (the case
    # where unsmoothed BLEU is 0), and no brevity penalty
    hypotheses = [" so ".join(" ".join(r.split()[i : i + 2]) for i in range(0, len(r.split()), 2)) for r in references]
    expected = sacrebleu.corpus_bleu(hypotheses, [references])
    assert expected.counts[3] == 0 and expected.counts[0] > 0 and expected.score > 0
    scores = CorpusScores()
    for start in range(0, 60, 25):
        scores.update(hypotheses[start : start + 25], references[start : start + 25])
    assert len(scores) == 60
    bleu, chrf, exact, lowercase = scores.compute()
    assert bleu == expected.score
    assert lowercase == sacrebleu.corpus_bleu(hypotheses, [references], lowercase=True).score
    assert chrf == sacrebleu.corpus_chrf(hypotheses, [references]).score
    assert exact == 0.0  # every hypothesis has an extra "so"
    assert len(scores) == 0 and scores.signatures["bleu"].startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp")
    assert scores.signatures["bleu_lowercase"].startswith("nrefs:1|case:lc|eff:no|tok:13a|smooth:exp")


def _score_share(rank: int, port: int, hypotheses: list[str], references: list[str], folder) -> None:
    """Rank ``rank`` of two scores sentences ``rank::2`` (as a distributed sampler shares a split)."""
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    try:
        scores = CorpusScores()
        scores.update(hypotheses[rank::2], references[rank::2])
        (folder / f"rank{rank}.json").write_text(json.dumps(scores.compute()))
    finally:
        dist.destroy_process_group()


def test_corpus_scores_over_two_ranks_equal_sacrebleu_on_the_whole(data_dir, tmp_path):
    references = _references(data_dir, 41)
    hypotheses = [r if k % 3 else " ".join(r.split()[::2]) for k, r in enumerate(references)]
    bleu, chrf = sacrebleu.corpus_bleu(hypotheses, [references]), sacrebleu.corpus_chrf(hypotheses, [references])
    port = 29500 + os.getpid() % 1000
    mp.start_processes(_score_share, args=(port, hypotheses, references, tmp_path), nprocs=2, start_method="fork")
    exact = sum(k % 3 != 0 for k in range(41)) / 41  # the hypotheses that are their reference
    lowercase = sacrebleu.corpus_bleu(hypotheses, [references], lowercase=True).score
    for rank in (0, 1):
        scores = tuple(json.loads((tmp_path / f"rank{rank}.json").read_text()))
        assert scores == (bleu.score, chrf.score, exact, lowercase)


def test_logged_val_bleu_is_sacrebleu_of_the_decoded_translations(data_dir, cli_env, tmp_path, monkeypatch):
    """A 20-step model's greedy translations ("A"), each followed by "man is in", so that every order of
    n-grams has some (sacreBLEU scores 0 where a corpus has no 4-gram at all, smoothed or not): they match
    unigrams and bigrams but no 4-gram, which sacreBLEU smooths to a positive score, the val_bleu logged
    (torchmetrics' unsmoothed score, logged before, was 0)."""
    data = small_copy(data_dir, "multi30k", tmp_path / "multi30k", {"train": 300, "validation": 48})
    hypotheses, references = [], []
    translate, evaluate = TranslationTask.pending_translations, TranslationTask.evaluate

    def recording_translate(self, *args):
        hypotheses.extend(found := [f"{text} man is in" for text in texts(translate(self, *args))])
        return found

    def recording_evaluate(self, stage, batch, batch_idx):
        references.extend(batch["tgt_text"])
        evaluate(self, stage, batch, batch_idx)

    monkeypatch.setattr(TranslationTask, "pending_translations", recording_translate)
    monkeypatch.setattr(TranslationTask, "evaluate", recording_evaluate)
    clear = lambda self: [hypotheses.clear(), references.clear()]  # noqa: E731 (the last validation's only)
    monkeypatch.setattr(TranslationTask, "on_validation_epoch_start", clear)
    main(
        [
            "fit",
            "--config",
            str(CONFIGS / "encoder_decoder" / "multi30k.yaml"),
            f"--data.path={data}",
            *TINY_MODEL,
            "--model.num_encoder_layers=1",
            "--model.num_decoder_layers=1",
            "--model.dropout=0",
            "--model.lr=0.01",
            "--model.max_len_a=0",
            "--model.max_len_b=4",
            "--data.vocab_size=300",
            "--data.max_tokens=256",
            "--trainer.max_steps=20",
            "--trainer.val_check_interval=20",
            "--trainer.num_sanity_val_steps=0",
            "--trainer.enable_progress_bar=false",
            "--trainer.enable_model_summary=false",
        ]
    )
    (run_dir,) = (cli_env / "runs").iterdir()
    logged = [line for line in read_run(run_dir)["metrics"] if "val_bleu" in line]
    assert len(logged) == 1 and len(hypotheses) == len(references) == 48
    expected = sacrebleu.corpus_bleu(hypotheses, [references])
    assert expected.counts[0] > 0 and expected.totals[3] > 0 and expected.counts[3] == 0  # smoothing matters
    unsmoothed = SacreBLEUScore()
    unsmoothed.update(hypotheses, [[r] for r in references])
    assert float(unsmoothed.compute()) == 0
    assert logged[0]["val_bleu"] == float(torch.tensor(expected.score)) > 0  # logged as a float32
    exact = sum(h.strip() == r.strip() for h, r in zip(hypotheses, references, strict=True)) / len(references)
    assert logged[0]["val_exact_match"] == float(torch.tensor(exact))


def test_lowercased_bleu_scores_a_hypothesis_that_differs_in_case_only_as_a_match(data_dir):
    """sacreBLEU's ``lowercase=True``: the nearest to the lower-cased BLEU of the tutorials' anchors (issue 47)."""
    references = _references(data_dir, 30)
    hypotheses = [r.lower() if k % 2 else r.upper() for k, r in enumerate(references)]
    scores = CorpusScores()
    scores.update(hypotheses, references)
    found = scores.compute()
    assert found.bleu_lowercase == pytest.approx(100.0) and found.bleu < 60
    assert found.bleu == sacrebleu.corpus_bleu(hypotheses, [references]).score
