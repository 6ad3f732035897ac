"""Token embedding, scaled by sqrt(d_model), plus positional encoding and dropout (Vaswani et al. 2017,
sections 3.4 and 3.5), with BERT's token types and embedding norm on request (Devlin et al. 2019)."""

from __future__ import annotations

from torch import Tensor, nn

from zoo.nn.config import TransformerConfig
from zoo.nn.positional import PositionalEncoding, checked_shape, embedding_scale
from zoo.registry import POSITIONAL_ENCODINGS


class Embedder(nn.Module):
    """Token ids -> the input of a stack.

    Args:
        vocab_size: ``V``; the table has ``config.padded_vocab(V)`` rows.
        config: the shared knobs (``d_model``, ``pe``, ``max_len``, ``scale_embedding``, ``dropout``,
            ``vocab_multiple``, ``token_types``, ``embedding_norm``, ``norm_eps``, ``bias``).
        pad_id: the padding id; its embedding is zero and gets no gradient.

    Raises:
        ValueError: for an unknown ``pe`` or a ``rope`` with an odd head width.
    """

    def __init__(self, vocab_size: int, config: TransformerConfig, pad_id: int = 0) -> None:
        super().__init__()
        if not isinstance(vocab_size, int) or vocab_size <= pad_id:
            raise ValueError(f"the vocabulary size must be an integer above pad_id={pad_id}, got {vocab_size!r}")
        self.tokens = nn.Embedding(config.padded_vocab(vocab_size), config.d_model, padding_idx=pad_id)
        self.tokens.padding_rows = self.tokens.num_embeddings - vocab_size  # never looked up: ids are below V
        # std d_model^-0.5 so that the scaled embedding has unit variance (fairseq's choice).
        nn.init.normal_(self.tokens.weight, std=config.d_model**-0.5)
        self.tokens.weight.data[pad_id].zero_()
        self.scale = embedding_scale(config.d_model, config.scale_embedding)
        # an encoding of scope "stack" (an attention bias) lives in the stacks; the embeddings get none
        encoding = POSITIONAL_ENCODINGS.get(config.pe)
        encoding = encoding if encoding.scope == "embedding" else PositionalEncoding
        self.pe = encoding.from_config(config)
        self.types = nn.Embedding(config.token_types, config.d_model) if config.token_types else None
        if self.types is not None:
            nn.init.normal_(self.types.weight, std=0.02)  # BERT's initializer_range
        self.norm = None
        if config.embedding_norm:
            self.norm = nn.LayerNorm(config.d_model, eps=config.norm_eps, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    @property
    def rotary(self) -> nn.Module | None:
        """The rotary encoding for self-attention, or ``None``."""
        return self.pe.rotary

    def forward(self, tokens: Tensor, start: int = 0, token_types: Tensor | None = None) -> Tensor:
        """Embed ``(B, T)`` ids at positions ``start, ...`` -> ``(B, T, D)``: the scaled token embedding, the
        positional encoding, the token-type embedding (``model.token_types``; ``token_types`` ``(B, T)`` long,
        ``None``: type 0 everywhere), the embedding norm (``model.embedding_norm``), then dropout.

        Raises:
            ValueError: with ``pe=learned``, for positions at or beyond ``max_len``.
        """
        embedded = self.tokens(tokens) * self.scale
        x = checked_shape(self.pe, "forward", self.pe(embedded, start), tuple(embedded.shape))
        if self.types is not None:
            x = x + (self.types.weight[0] if token_types is None else self.types(token_types))
        if self.norm is not None:
            x = self.norm(x)
        return self.dropout(x)
