"""Evaluation metrics in float32 (counts in int64) under every ``trainer.precision`` (issue 32): ``bf16-true``
and ``16-true`` cast the whole module, and its torchmetrics states with it, so that a validation's sums were
bfloat16 (a loss of 4.625 where float32 reads 4.963) or overflowed float16 to ``inf``."""

import functools

import lightning.pytorch as pl
import pytest
import sacrebleu
import torch
from torch.utils.data import DataLoader
from torchmetrics import Metric

from tests.training.test_bf16_mixed import VARIANTS, _task_and_batch

BATCHES = 40  # enough that a 16-bit sum of batch losses rounds far beyond float32's precision
TRUE_PRECISIONS = ("bf16-true", "16-true")
WORDS = "a man in a blue shirt is riding his bike down the street while two dogs run beside".split()


def _batches(variant: str) -> list[dict]:
    make_batch = VARIANTS[variant][1]
    generator = torch.Generator().manual_seed(1)
    batches = [make_batch(generator) for _ in range(BATCHES)]
    for k, batch in enumerate(batches):
        if variant == "encoder_decoder":  # references for BLEU: 4 sentences of 12 words
            batch["tgt_text"] = [" ".join(WORDS[(k + row) % 5 :][:12]) for row in range(4)]
    return batches


def _hypotheses(references: list[str]) -> list[str]:
    """Each reference with its third word dropped: a BLEU in the middle of the range."""
    return [" ".join(r.split()[:2] + r.split()[3:]) for r in references]


@functools.cache  # one validation serves every test of its variant and precision (none changes what it returns)
def _validate(variant: str, precision: str) -> tuple[pl.LightningModule, dict, list[dict]]:
    knobs = {"bleu_batches": BATCHES} if variant == "encoder_decoder" else {}
    task, _ = _task_and_batch(variant, **knobs)
    if variant == "encoder_decoder":  # decode without a data module's tokenizer: BLEU's statistics are the point
        task.pending_translations = lambda src, src_padding_mask: _hypotheses(task._references.pop(0))
        task._references = [b["tgt_text"] for b in _batches(variant)]
    trainer = pl.Trainer(
        accelerator="cpu",
        precision=precision,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    batches = _batches(variant)
    (metrics,) = trainer.validate(task, DataLoader(batches, batch_size=None), verbose=False)
    return task, metrics, batches


def _reference_loss(task, variant: str, batches: list[dict], precision: str) -> float:
    """The validation loss of the (cast) ``task``'s own per-batch float32 losses, summed in float64."""
    plugin = pl.Trainer(accelerator="cpu", precision=precision, logger=False).precision_plugin
    total, count = torch.zeros((), dtype=torch.float64), torch.zeros((), dtype=torch.float64)
    with torch.no_grad(), plugin.forward_context():
        for batch in plugin.convert_input(batches):
            if variant == "encoder_decoder":
                loss, tokens = task._token_losses(batch, 0.0)
            elif variant == "decoder_only":
                loss, tokens = task.summed_loss(batch)
            else:
                logits = task(batch["tokens"], batch["padding_mask"]).float()
                tokens = torch.tensor(len(batch["labels"]))
                loss = torch.nn.functional.cross_entropy(logits, batch["labels"]) * tokens
            assert loss.dtype == torch.float32  # each batch's loss from float32 logits
            total, count = total + loss.double(), count + tokens.double()
    return float(total / count)


@pytest.mark.parametrize("precision", TRUE_PRECISIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_metric_state_stays_float32_and_counts_int64(variant, precision):
    task, metrics, _ = _validate(variant, precision)
    assert next(task.network.parameters()).dtype != torch.float32  # the module itself was cast
    states = {
        f"{name}.{key}": getattr(metric, key)
        for name, metric in task.named_modules()
        if isinstance(metric, Metric)
        for key in metric._defaults
    }
    assert states and all(isinstance(value, torch.Tensor) for value in states.values())
    floating = {key for key, value in states.items() if value.is_floating_point()}
    assert {key: states[key].dtype for key in floating} == dict.fromkeys(floating, torch.float32)
    counts = {key for key in states if "tokens" in key}
    assert len(counts) == (2 if variant != "encoder_only" else 0)  # val and test token counts
    assert {states[key].dtype for key in counts} <= {torch.int64}
    assert all(torch.isfinite(torch.tensor(value)) for value in metrics.values())


@pytest.mark.parametrize("precision", TRUE_PRECISIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_loss_is_the_float64_sum_of_the_batches(variant, precision):
    task, metrics, batches = _validate(variant, precision)
    expected = _reference_loss(task, variant, batches, precision)
    assert metrics["val_loss"] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_16_bit_validation_agrees_with_float32(variant):
    _, full, _ = _validate(variant, "32-true")
    for precision in (*TRUE_PRECISIONS, "bf16-mixed"):
        _, half, _ = _validate(variant, precision)
        # what is left is the model's own 16-bit arithmetic: measured differences below 0.0005 (the losses are
        # about 4.5, and ln 2 for the classifier)
        assert half["val_loss"] == pytest.approx(full["val_loss"], abs=0.002), precision


@pytest.mark.parametrize("precision", TRUE_PRECISIONS)
def test_bleu_statistics_are_counted_exactly(precision):
    _, metrics, batches = _validate("encoder_decoder", precision)
    references = [r for batch in batches for r in batch["tgt_text"]]
    expected = sacrebleu.corpus_bleu(_hypotheses(references), [references]).score
    assert 10 < expected < 90 and len(" ".join(references).split()) > 1024  # beyond bfloat16's exact integers
    assert metrics["val_bleu"] == pytest.approx(expected, abs=1e-3)


def test_a_cast_keeps_the_values_accumulated_so_far():
    task, _ = _task_and_batch("decoder_only")
    third = torch.tensor(1.0) / 3  # no bfloat16 holds it
    task.sums["val_nll"].update(third)
    task.sums["val_tokens"].update(torch.tensor(2**30 + 1))
    task.to(torch.bfloat16)
    assert task.sums["val_nll"].sum_value.item() == third.item()
    assert task.sums["val_tokens"].sum_value.item() == 2**30 + 1
    assert task.sums["val_nll"].dtype == torch.float32
    assert task.sums["val_nll"]._defaults["sum_value"].dtype == torch.float32
