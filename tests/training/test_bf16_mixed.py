"""bf16 mixed precision (``--trainer.precision bf16-mixed``, Lightning's autocast) for the three variants: the
first loss equals float32's within bfloat16's rounding, every norm keeps float32 statistics, and a few
optimiser steps stay finite (issue 8)."""

import lightning.pytorch as pl
import pytest
import torch
from torch.utils.data import DataLoader

from zoo.data.padding import IGNORE_INDEX
from zoo.nn import NORMS
from zoo.nn.masks import padding_mask
from zoo.tasks import ClassificationTask, LanguageModelTask, TranslationTask

VOCAB = 50
TINY = dict(vocab_size=VOCAB, d_model=32, n_heads=2, d_ff=64, dropout=0.0, warmup_steps=1, max_len=16)
# The first loss (about ln 50 = 3.9) under bf16 autocast: measured differences from float32 stay below 0.0031
# for every variant, norm and norm position (bfloat16 keeps 8 mantissa bits: 0.4% per rounding).
TOLERANCE = 0.01


def _ids(rows: int, length: int, generator: torch.Generator) -> torch.Tensor:
    return torch.randint(4, VOCAB, (rows, length), generator=generator)


def _padded(rows: int, length: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids with right padding (id 0) after random lengths, and the padding mask."""
    lengths = torch.randint(length // 2, length + 1, (rows,), generator=generator)
    lengths[0] = length
    mask = padding_mask(lengths, length)
    return _ids(rows, length, generator).masked_fill(mask, 0), mask


def translation_batch(generator: torch.Generator) -> dict:
    src, src_padding_mask = _padded(4, 9, generator)
    tgt_in, tgt_padding_mask = _padded(4, 7, generator)
    tgt_out = _ids(4, 7, generator).masked_fill(tgt_padding_mask, IGNORE_INDEX)
    return dict(
        src=src, src_padding_mask=src_padding_mask, tgt_in=tgt_in, tgt_out=tgt_out, tgt_padding_mask=tgt_padding_mask
    )


def classification_batch(generator: torch.Generator) -> dict:
    tokens, mask = _padded(4, 9, generator)
    return dict(tokens=tokens, padding_mask=mask, labels=torch.randint(0, 2, (4,), generator=generator))


def language_model_batch(generator: torch.Generator) -> dict:
    tokens = _ids(4, 10, generator)
    return dict(tokens=tokens[:, :-1], targets=tokens[:, 1:])


VARIANTS = {
    "encoder_decoder": (
        lambda **knobs: TranslationTask(num_encoder_layers=1, num_decoder_layers=1, **TINY, **knobs),
        translation_batch,
    ),
    "encoder_only": (lambda **knobs: ClassificationTask(num_layers=2, **TINY, **knobs), classification_batch),
    "decoder_only": (lambda **knobs: LanguageModelTask(num_layers=2, **TINY, **knobs), language_model_batch),
}


def _task_and_batch(variant: str, seed: int = 0, **knobs):
    make_task, make_batch = VARIANTS[variant]
    torch.manual_seed(seed)
    return make_task(**knobs), make_batch(torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("norm_position", ["pre", "post"])
@pytest.mark.parametrize("norm", NORMS.names())
@pytest.mark.parametrize("variant", VARIANTS)
def test_first_loss_under_bf16_autocast_equals_float32(variant, norm, norm_position):
    task, batch = _task_and_batch(variant, norm=norm, norm_position=norm_position, pe="rope")
    state = {k: v.clone() for k, v in task.state_dict().items()}
    full, _ = task.training_loss(batch)
    task.load_state_dict(state)  # that training pass moved the running statistics: start from the same ones
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mixed, _ = task.training_loss(batch)
    assert mixed.dtype == torch.float32  # the loss itself in float32
    assert torch.isfinite(mixed)
    assert abs(mixed.item() - full.item()) < TOLERANCE


def bf16_mixed_losses(task, batch: dict, accelerator: str) -> list[torch.Tensor]:
    """The losses of four bf16-mixed training steps of ``task`` on ``batch`` (on the CPU, or ``"gpu"``)."""
    losses = []

    class Record(pl.Callback):
        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
            losses.append(outputs["loss"].detach().cpu())

    trainer = pl.Trainer(
        accelerator=accelerator,
        devices=1,
        precision="bf16-mixed",
        max_steps=4,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[Record()],
    )
    trainer.fit(task, DataLoader([batch] * 4, batch_size=None))
    return losses


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_few_bf16_mixed_steps_stay_finite_with_float32_statistics(variant):
    task, batch = _task_and_batch(variant, norm="batchnorm")
    losses = bf16_mixed_losses(task, batch, "cpu")
    assert len(losses) == 4 and all(torch.isfinite(loss) and loss.dtype == torch.float32 for loss in losses)
    assert losses[-1] < losses[0]  # the same batch four times: AdamW lowers its loss
    floats = [t for t in [*task.parameters(), *task.buffers()] if t.is_floating_point()]
    assert all(t.dtype == torch.float32 and torch.isfinite(t).all() for t in floats)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("norm", NORMS.names())
def test_norms_compute_in_float32_and_round_once(norm, causal):
    """bfloat16 in, bfloat16 out, but the statistics in float32: the output is float32's on the same input,
    rounded once (by at most 2^-8 of its size, bfloat16's unit roundoff; rounding intermediates costs more)."""
    torch.manual_seed(0)
    x = (torch.randn(4, 12, 32) * 0.5 + 3.0).bfloat16()  # features far from zero: E[x^2] - E[x]^2 cancels
    mask = padding_mask(torch.tensor([12, 9, 5, 12]), 12)
    layer = NORMS.build(norm, 32, causal=causal, max_len=16)
    state = {k: v.clone() for k, v in layer.state_dict().items()}
    expected = layer(x.float(), mask)
    layer.load_state_dict(state)
    out = layer(x, mask)
    assert out.dtype == torch.bfloat16
    assert torch.all((out.float() - expected).abs() <= expected.abs() * 2**-8 + 1e-5)
