"""The training-step cases of the benchmark: each zoo backbone and its reference at one shape (issue 8, "The
benchmark"). A case builds its model, one batch and the loss, so that every model does the same work: the
same tokens, the same loss, the same optimiser."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from benchmarks.flops import Attention
from benchmarks.references import TorchTransformer, hf_bert, hf_gpt2, nanogpt_model, require_transformers
from zoo.nn import DecoderOnly, EncoderDecoder, EncoderOnly, TransformerConfig
from zoo.nn.masks import padding_mask


@dataclass(frozen=True)
class Shape:
    """The sizes of one case; ``length`` is the block (decoder-only), the sentence length (encoder-only) or
    both sides' length (encoder-decoder)."""

    layers: int
    heads: int
    d_model: int
    d_ff: int
    length: int
    batch: int
    vocab: int
    dropout: float = 0.0


@dataclass
class Case:
    """One row of the training table.

    Args:
        name: the row's label.
        shape: its sizes.
        build: makes the model (on the CPU, in float32).
        batch: makes one batch on a device: a dict of tensors.
        loss: ``loss(model, batch)``, a scalar.
        tokens: tokens per step (target tokens for the encoder-decoder).
        attention: the attention layers, for the FLOPs' attention term.
        reference: the name of the row this one is compared with (``None``: it is a reference or alone).
    """

    name: str
    shape: Shape
    build: Callable[[], nn.Module]
    batch: Callable[[torch.device], dict]
    loss: Callable[[nn.Module, dict], Tensor]
    tokens: int
    attention: list[Attention] = field(default_factory=list)
    reference: str | None = None


SHAPE_A = Shape(layers=4, heads=4, d_model=128, d_ff=512, length=64, batch=12, vocab=65)
SHAPE_B = Shape(layers=6, heads=6, d_model=384, d_ff=1536, length=256, batch=8, vocab=65)
TRANSLATION = Shape(layers=3, heads=8, d_model=256, d_ff=512, length=24, batch=128, vocab=8000, dropout=0.1)
SST2 = Shape(layers=2, heads=4, d_model=128, d_ff=512, length=32, batch=128, vocab=8000, dropout=0.1)
# GPT-2 small (Radford et al. 2019) at nanoGPT's batch of 16 x 1024 tokens: the GPU rows of issue 41.
GPT2_SMALL = Shape(layers=12, heads=12, d_model=768, d_ff=3072, length=1024, batch=16, vocab=50257)
# The shipped Tiny Shakespeare config's knobs (configs/decoder_only/tinyshakespeare.yaml), GPT-2's layout.
LANGUAGE_MODEL_KNOBS = dict(activation="gelu", norm="layernorm", norm_position="pre", pe="learned")


def _config(shape: Shape, **knobs) -> TransformerConfig:
    return TransformerConfig(
        d_model=shape.d_model, n_heads=shape.heads, d_ff=shape.d_ff, dropout=shape.dropout,
        max_len=max(shape.length, 64), **knobs,
    )  # fmt: skip


def _case(name: str, shape: Shape, build, batch, loss, reference: str | None = None, attention=None) -> Case:
    """A case of ``shape.batch x shape.length`` tokens per step, with self-attention over the whole length in
    every layer unless ``attention`` says otherwise."""
    attention = attention or [Attention(shape.layers, shape.length, shape.length)]
    return Case(name, shape, build, batch, loss, shape.batch * shape.length, attention, reference)


def _language_model_batch(shape: Shape) -> Callable[[torch.device], dict]:
    def batch(device: torch.device) -> dict:
        ids = torch.randint(1, shape.vocab, (shape.batch, shape.length + 1), device=device)
        # contiguous, as a data loader's batches are (nanoGPT's model views its targets)
        return {"tokens": ids[:, :-1].contiguous(), "targets": ids[:, 1:].contiguous()}

    return batch


def _next_token_loss(logits: Tensor, targets: Tensor) -> Tensor:
    return F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())


def decoder_only(name: str, shape: Shape, reference: str | None = None, **knobs) -> Case:
    """The zoo's decoder-only model at ``shape`` with the shipped language-model knobs, ``knobs`` changed."""
    config = _config(shape, **{**LANGUAGE_MODEL_KNOBS, **knobs})
    return _case(
        name, shape, lambda: DecoderOnly(config, shape.vocab, shape.layers), _language_model_batch(shape),
        lambda model, b: _next_token_loss(model(b["tokens"]), b["targets"]), reference,
    )  # fmt: skip


def gpt2(name: str, shape: Shape) -> Case:
    """Hugging Face's GPT-2 at ``shape`` (its own layout: pre-norm, learned positions, GELU, d_ff = 4 d)."""
    require_transformers()
    return _case(
        name, shape,
        lambda: hf_gpt2(shape.vocab, shape.layers, shape.heads, shape.d_model, shape.length, shape.dropout),
        _language_model_batch(shape),
        lambda model, b: _next_token_loss(model(input_ids=b["tokens"]).logits, b["targets"]),
    )  # fmt: skip


def nanogpt(name: str, shape: Shape, clone: Path, reference: str | None = None) -> Case:
    """nanoGPT's model at ``shape`` from a local clone (its layout is GPT-2's, without biases), with its own
    loss (the same cross-entropy over every position)."""
    return _case(
        name, shape,
        lambda: nanogpt_model(clone, shape.vocab, shape.layers, shape.heads, shape.d_model, shape.length,
                              shape.dropout),
        _language_model_batch(shape), lambda model, b: model(b["tokens"], b["targets"])[1], reference,
    )  # fmt: skip


def _sentences(shape: Shape, device: torch.device, generator: torch.Generator) -> tuple[Tensor, Tensor]:
    """Ids of sentences of random lengths (at least half the shape's), right-padded, and their padding mask."""
    lengths = torch.randint(shape.length // 2, shape.length + 1, (shape.batch,), generator=generator)
    lengths[0] = shape.length
    mask = padding_mask(lengths, shape.length)
    ids = torch.randint(1, shape.vocab, (shape.batch, shape.length), generator=generator).masked_fill(mask, 0)
    return ids.to(device), mask.to(device)


def _classification_batch(shape: Shape) -> Callable[[torch.device], dict]:
    def batch(device: torch.device) -> dict:
        generator = torch.Generator().manual_seed(0)
        tokens, mask = _sentences(shape, device, generator)
        labels = torch.randint(0, 2, (shape.batch,), generator=generator).to(device)
        return {"tokens": tokens, "padding_mask": mask, "labels": labels}

    return batch


class Classifier(nn.Module):
    """The zoo's encoder with the classification task's mean pooling and linear head."""

    def __init__(self, config: TransformerConfig, vocab: int, layers: int) -> None:
        super().__init__()
        self.encoder = EncoderOnly(config, vocab, layers)
        self.head = nn.Sequential(nn.Dropout(config.dropout), nn.Linear(config.d_model, 2))

    def forward(self, tokens: Tensor, mask: Tensor) -> Tensor:
        real = (~mask).unsqueeze(-1).to(torch.float32)
        hidden = self.encoder(tokens, mask)
        return self.head((hidden * real).sum(1) / real.sum(1).clamp(min=1))


def encoder_only(name: str, shape: Shape, reference: str | None = None) -> Case:
    """The zoo's encoder at the SST-2 config's knobs (pre-norm, GELU, sinusoidal, mean pooling, no dropout on
    the FFN's hidden layer, as BERT)."""
    knobs = dict(activation="gelu", norm="layernorm", norm_position="pre", pe="sinusoidal", activation_dropout=0.0)
    config = _config(shape, **knobs)
    return _case(
        name, shape, lambda: Classifier(config, shape.vocab, shape.layers), _classification_batch(shape),
        lambda model, b: F.cross_entropy(model(b["tokens"], b["padding_mask"]).float(), b["labels"]), reference,
    )  # fmt: skip


def bert(name: str, shape: Shape) -> Case:
    """Hugging Face's BERT classifier at ``shape`` (post-norm, learned positions, [CLS] pooler)."""
    require_transformers()
    return _case(
        name, shape,
        lambda: hf_bert(shape.vocab, shape.layers, shape.heads, shape.d_model, shape.d_ff, shape.length,
                        shape.dropout),
        _classification_batch(shape),
        lambda model, b: F.cross_entropy(
            model(input_ids=b["tokens"], attention_mask=(~b["padding_mask"]).long()).logits.float(), b["labels"]
        ),
    )  # fmt: skip


def _translation_batch(shape: Shape) -> Callable[[torch.device], dict]:
    def batch(device: torch.device) -> dict:
        generator = torch.Generator().manual_seed(0)
        src, src_mask = _sentences(shape, device, generator)
        tgt, tgt_mask = _sentences(replace(shape, length=shape.length + 1), device, generator)
        tgt_out = tgt[:, 1:].masked_fill(tgt_mask[:, 1:], -100)
        return {"src": src, "src_mask": src_mask, "tgt": tgt[:, :-1], "tgt_mask": tgt_mask[:, :-1], "out": tgt_out}

    return batch


def _translation_loss(model: nn.Module, b: dict) -> Tensor:
    logits = model(b["src"], b["tgt"], b["src_mask"], b["tgt_mask"])
    return F.cross_entropy(logits.flatten(0, 1).float(), b["out"].flatten(), label_smoothing=0.1)


def _translation_attention(shape: Shape) -> list[Attention]:
    """Encoder self-attention, decoder self-attention and cross-attention, both sides ``shape.length`` long."""
    return [Attention(shape.layers, shape.length, shape.length)] * 3


def encoder_decoder(name: str, shape: Shape, reference: str | None = None) -> Case:
    """The zoo's encoder-decoder at the Multi30k config's knobs (pre-norm, ReLU, sinusoidal, shared
    embeddings, label smoothing 0.1)."""
    config = _config(shape, activation="relu", norm="layernorm", norm_position="pre", pe="sinusoidal")
    return _case(
        name, shape,
        lambda: EncoderDecoder(config, shape.vocab, shape.vocab, shape.layers, shape.layers, share_embeddings=True),
        _translation_batch(shape), _translation_loss, reference, _translation_attention(shape),
    )  # fmt: skip


def torch_transformer(name: str, shape: Shape) -> Case:
    """``torch.nn.Transformer`` with embeddings and output projection at ``shape``."""
    return _case(
        name, shape,
        lambda: TorchTransformer(shape.vocab, shape.d_model, shape.heads, shape.d_ff, shape.layers, shape.dropout),
        _translation_batch(shape), _translation_loss, attention=_translation_attention(shape),
    )  # fmt: skip
