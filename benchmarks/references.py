"""The reference implementations the zoo is measured against, at the zoo's shapes: Hugging Face's GPT-2 and
BERT (SDPA attention; ``transformers`` comes with the ``bench`` extra), ``torch.nn.Transformer``, and, given a
local clone, nanoGPT's model (not a dependency; nothing of it is copied here)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import warnings
from pathlib import Path

import torch
from torch import Tensor, nn

from zoo.nn.positional import sinusoid_table


def require_transformers():
    """The ``transformers`` module (imported when a case is defined, so that no timing or memory measurement
    includes the import), or a one-line exit saying how to install it."""
    try:
        import transformers
    except ImportError as error:
        raise SystemExit(
            "benchmarks: the Hugging Face reference rows need transformers: pip install -e '.[bench]' "
            "(or leave them out with --only)"
        ) from error
    transformers.GPT2LMHeadModel, transformers.BertForSequenceClassification  # noqa: B018 (lazy modules: load now)
    return transformers


def hf_gpt2(vocab_size: int, layers: int, heads: int, d_model: int, block: int, dropout: float) -> nn.Module:
    """``GPT2LMHeadModel`` with SDPA attention, exact GELU (as the zoo's ``gelu``) and tied embeddings."""
    transformers = require_transformers()
    config = transformers.GPT2Config(
        vocab_size=vocab_size,
        n_positions=block,
        n_embd=d_model,
        n_layer=layers,
        n_head=heads,
        activation_function="gelu",
        resid_pdrop=dropout,
        embd_pdrop=dropout,
        attn_pdrop=dropout,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation="sdpa",
    )
    return transformers.GPT2LMHeadModel(config)


def hf_bert(vocab_size: int, layers: int, heads: int, d_model: int, d_ff: int, length: int, dropout: float):
    """``BertForSequenceClassification`` (2 labels) with SDPA attention and exact GELU."""
    transformers = require_transformers()
    config = transformers.BertConfig(
        vocab_size=vocab_size,
        hidden_size=d_model,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=d_ff,
        hidden_act="gelu",
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
        max_position_embeddings=max(length, 512),
        num_labels=2,
        pad_token_id=0,
        attn_implementation="sdpa",
    )
    return transformers.BertForSequenceClassification(config)


def nanogpt_model(clone: Path, vocab_size: int, layers: int, heads: int, d_model: int, block: int, dropout: float):
    """nanoGPT's ``GPT`` (github.com/karpathy/nanoGPT, ``model.py``, loaded from a local clone at ``clone``) as
    its ``train.py`` builds it: no biases in linear layers and LayerNorms (``bias=False``), tied embeddings,
    d_ff = 4 d, SDPA's causal kernel. Called as ``model(idx, targets)`` it returns ``(logits, loss)``.

    Raises:
        SystemExit: ``clone`` has no ``model.py``.
    """
    path = Path(clone) / "model.py"
    if not path.is_file():
        raise SystemExit(f"benchmarks: --nanogpt={str(clone)!r} has no model.py (a clone of karpathy/nanoGPT)")
    spec = importlib.util.spec_from_file_location("nanogpt_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = module.GPTConfig(
        block_size=block, vocab_size=vocab_size, n_layer=layers, n_head=heads, n_embd=d_model, dropout=dropout,
        bias=False,
    )  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()):  # its "number of parameters" line
        return module.GPT(config)


class TorchTransformer(nn.Module):
    """``torch.nn.Transformer`` (batch first, pre-norm as the zoo's shipped config) with a shared embedding
    scaled by sqrt(d_model), sinusoidal positions and a tied output projection: the zoo's encoder-decoder
    written with PyTorch's own layers.

    Args:
        vocab_size: ``V``, shared by source and target.
        d_model, n_heads, d_ff, dropout: as the zoo's knobs.
        layers: encoder and decoder depth each.
        max_len: the longest sequence (the size of the position table).
    """

    def __init__(
        self, vocab_size: int, d_model: int, n_heads: int, d_ff: int, layers: int, dropout: float, max_len: int = 512
    ) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.register_buffer("positions", sinusoid_table(max_len, d_model), persistent=False)
        self.dropout = nn.Dropout(dropout)
        with warnings.catch_warnings():  # "enable_nested_tensor is True, but ... norm_first": inference only
            warnings.simplefilter("ignore", UserWarning)
            self.transformer = nn.Transformer(
                d_model, n_heads, layers, layers, d_ff, dropout, batch_first=True, norm_first=True
            )
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        self.output.weight = self.embed.weight
        self.scale = d_model**0.5

    def _embed(self, ids: Tensor) -> Tensor:
        return self.dropout(self.embed(ids) * self.scale + self.positions[: ids.shape[1]])

    def forward(self, src: Tensor, tgt: Tensor, src_padding_mask: Tensor, tgt_padding_mask: Tensor) -> Tensor:
        """``(B, S)`` and ``(B, T)`` ids with their padding masks (``True`` at padding) -> ``(B, T, V)``."""
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], device=tgt.device, dtype=torch.bool)
        hidden = self.transformer(
            self._embed(src),
            self._embed(tgt),
            tgt_mask=causal,
            src_key_padding_mask=src_padding_mask,
            tgt_key_padding_mask=tgt_padding_mask,
            memory_key_padding_mask=src_padding_mask,
            tgt_is_causal=True,
        )
        return self.output(hidden)
