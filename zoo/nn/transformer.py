"""The three backbones of the zoo, composed from the same layers (Vaswani et al. 2017, section 3.1).

- :class:`EncoderDecoder`: an encoder stack and a causal decoder stack with encoder-decoder attention.
- :class:`EncoderOnly`: a bidirectional, padding-masked encoder stack (BERT-style).
- :class:`DecoderOnly`: a causal stack with a language-model head (GPT-style).
"""

from __future__ import annotations

from torch import Tensor, nn

from zoo.nn.config import TransformerConfig
from zoo.nn.embedding import Embedder
from zoo.nn.layers import LayerCache, TransformerStack
from zoo.nn.masks import check_padding_mask


def init_linear_weights(module: nn.Module) -> None:
    """Xavier-uniform weights and zero biases for every ``nn.Linear`` (as ``torch.nn.Transformer``). A linear
    layer that stacks projections (attention's ``in_proj``: W^Q, W^K, W^V) names their rows in ``stacked`` and
    is initialised as that many separate matrices, so that each gets the scale of a ``(D, D)`` (``(D_kv, D)``)
    matrix, not of a ``(3 D, D)`` one."""
    for sub in module.modules():
        if isinstance(sub, nn.Linear):
            for block in sub.weight.data.split(list(getattr(sub, "stacked", [sub.out_features]))):
                nn.init.xavier_uniform_(block)
            if sub.bias is not None:
                nn.init.zeros_(sub.bias)


class OutputProjection(nn.Module):
    """Hidden states -> vocabulary logits, optionally sharing its weight with an embedding
    (Vaswani et al. 2017, section 3.4; Press and Wolf 2017). No bias unless ``bias`` (``model.output_bias``:
    Marian's ``final_logits_bias``, zero at the start).

    Args:
        d_model: ``D``.
        vocab_size: ``V``.
        tied_to: an ``nn.Embedding`` of shape ``(P, D)`` whose weight is reused, or ``None``.
        padded_size: ``P >= V``, the rows of the weight (``TransformerConfig.vocab_multiple``); ``None``: ``V``.
        bias: a learned ``(P,)`` bias of the logits, initialised to zero.
    """

    def __init__(
        self,
        d_model: int,
        vocab_size: int,
        tied_to: nn.Embedding | None = None,
        padded_size: int | None = None,
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.linear = nn.Linear(d_model, padded_size or vocab_size, bias=bias)
        if bias:
            nn.init.zeros_(self.linear.bias)
        self.linear.padding_rows = self.linear.out_features - vocab_size
        if tied_to is not None:
            self.linear.weight = tied_to.weight

    def forward(self, x: Tensor) -> Tensor:
        """``(B, T, D)`` -> ``(B, T, V)``: the ``P``-wide matmul, then a view of its first ``V`` logits, so that
        no loss, metric or decoder ever sees a padding row's."""
        logits = self.linear(x)
        return logits[..., : self.vocab_size] if self.linear.padding_rows else logits


class EncoderDecoder(nn.Module):
    """The Transformer of Vaswani et al. 2017 (Figure 1) for sequence-to-sequence tasks.

    Args:
        config: the shared knobs.
        src_vocab_size: source vocabulary size.
        tgt_vocab_size: target vocabulary size.
        num_encoder_layers: encoder depth (paper: 6).
        num_decoder_layers: decoder depth (paper: 6).
        tie_embeddings: share the target embedding with the output projection (section 3.4).
        share_embeddings: one embedding for source and target (a joint vocabulary; needs equal sizes).
        pad_id: the padding id of both vocabularies.

    Raises:
        ValueError: for bad knobs (see :class:`TransformerConfig`) or ``share_embeddings`` with two sizes.

    Example:
        >>> model = EncoderDecoder(TransformerConfig(d_model=32, n_heads=4, d_ff=64), 100, 100, 2, 2)
        >>> src, tgt = torch.randint(1, 100, (2, 7)), torch.randint(1, 100, (2, 5))
        >>> model(src, tgt).shape
        torch.Size([2, 5, 100])
    """

    def __init__(
        self,
        config: TransformerConfig,
        src_vocab_size: int,
        tgt_vocab_size: int,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        tie_embeddings: bool = True,
        share_embeddings: bool = False,
        pad_id: int = 0,
    ) -> None:
        super().__init__()
        if share_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError(
                f"share_embeddings needs one vocabulary, but src_vocab_size={src_vocab_size} and "
                f"tgt_vocab_size={tgt_vocab_size}"
            )
        self.config, self.pad_id = config, pad_id
        self.encoder = TransformerStack(config, num_encoder_layers)
        self.decoder = TransformerStack(config, num_decoder_layers, is_causal=True, cross_attention=True)
        init_linear_weights(self)
        self.src_embed = Embedder(src_vocab_size, config, pad_id)
        self.tgt_embed = self.src_embed if share_embeddings else Embedder(tgt_vocab_size, config, pad_id)
        tied = self.tgt_embed.tokens if tie_embeddings else None
        self.output = OutputProjection(
            config.d_model, tgt_vocab_size, tied, config.padded_vocab(tgt_vocab_size), config.output_bias
        )
        if not tie_embeddings:
            nn.init.normal_(self.output.linear.weight, std=config.d_model**-0.5)

    def encode(self, src: Tensor, src_padding_mask: Tensor | None = None) -> Tensor:
        """``(B, S)`` source ids -> ``(B, S, D)`` memory; ``src_padding_mask`` ``(B, S)`` bool, ``True`` at pads
        (a ``ValueError`` for another dtype or shape)."""
        check_padding_mask(src_padding_mask, "src_padding_mask", tuple(src.shape))
        return self.encoder(self.src_embed(src), src_padding_mask, rotary=self.src_embed.rotary)

    def decode(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_padding_mask: Tensor | None = None,
        memory_padding_mask: Tensor | None = None,
        cache: list[LayerCache] | None = None,
    ) -> Tensor:
        """Decoder hidden states.

        Args:
            tgt: ``(B, T)`` target ids (shifted right: they start with BOS).
            memory: ``(B, S, D)`` from :meth:`encode`.
            tgt_padding_mask: ``(B, T)`` bool, ``True`` at padding (``(B, past + T)`` with a cache).
            memory_padding_mask: ``(B, S)`` bool, ``True`` at source padding.
            cache: from ``self.decoder.new_cache()`` for incremental decoding; ``tgt`` then holds only the
                new positions.

        Returns:
            ``(B, T, D)``.

        Raises:
            ValueError: a padding mask that is not bool or not of its shape.
        """
        start = cache[0].self_attn.length if cache else 0
        check_padding_mask(tgt_padding_mask, "tgt_padding_mask", (tgt.shape[0], start + tgt.shape[1]), "(B, past + T)")
        check_padding_mask(memory_padding_mask, "memory_padding_mask", tuple(memory.shape[:2]))
        x = self.tgt_embed(tgt, start)
        return self.decoder(x, tgt_padding_mask, memory, memory_padding_mask, self.tgt_embed.rotary, cache)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_padding_mask: Tensor | None = None,
        tgt_padding_mask: Tensor | None = None,
    ) -> Tensor:
        """``(B, S)`` source and ``(B, T)`` target ids (with their padding masks) -> ``(B, T, V)`` logits."""
        memory = self.encode(src, src_padding_mask)
        return self.output(self.decode(tgt, memory, tgt_padding_mask, src_padding_mask))


class EncoderOnly(nn.Module):
    """A bidirectional encoder stack over token embeddings (Devlin et al. 2019, without pre-training heads).

    Args:
        config: the shared knobs.
        vocab_size: ``V``.
        num_layers: depth.
        pad_id: the padding id.

    Raises:
        ValueError: for bad knobs (see :class:`TransformerConfig`).
    """

    def __init__(self, config: TransformerConfig, vocab_size: int, num_layers: int = 6, pad_id: int = 0):
        super().__init__()
        self.config, self.pad_id = config, pad_id
        self.encoder = TransformerStack(config, num_layers)
        init_linear_weights(self)
        self.embed = Embedder(vocab_size, config, pad_id)

    def forward(self, tokens: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """``(B, S)`` ids and ``(B, S)`` bool padding mask (``True`` at pads) -> ``(B, S, D)`` hidden states (a
        ``ValueError`` for a mask of another dtype or shape)."""
        check_padding_mask(padding_mask, "padding_mask", tuple(tokens.shape))
        return self.encoder(self.embed(tokens), padding_mask, rotary=self.embed.rotary)


class DecoderOnly(nn.Module):
    """A causal stack with a language-model head (Radford et al. 2018; Liu et al. 2018).

    Args:
        config: the shared knobs.
        vocab_size: ``V``.
        num_layers: depth.
        tie_embeddings: share the embedding with the output projection.
        pad_id: the padding id.

    Raises:
        ValueError: for bad knobs (see :class:`TransformerConfig`).
    """

    def __init__(
        self,
        config: TransformerConfig,
        vocab_size: int,
        num_layers: int = 6,
        tie_embeddings: bool = True,
        pad_id: int = 0,
    ) -> None:
        super().__init__()
        self.config, self.pad_id = config, pad_id
        self.decoder = TransformerStack(config, num_layers, is_causal=True)
        init_linear_weights(self)
        self.embed = Embedder(vocab_size, config, pad_id)
        tied = self.embed.tokens if tie_embeddings else None
        self.output = OutputProjection(
            config.d_model, vocab_size, tied, config.padded_vocab(vocab_size), config.output_bias
        )
        if not tie_embeddings:
            nn.init.normal_(self.output.linear.weight, std=config.d_model**-0.5)

    def forward(
        self, tokens: Tensor, padding_mask: Tensor | None = None, cache: list[LayerCache] | None = None
    ) -> Tensor:
        """``(B, T)`` ids -> ``(B, T, V)`` next-token logits.

        Args:
            tokens: ``(B, T)`` ids (only the new positions when ``cache`` is given).
            padding_mask: ``(B, T)`` bool, ``True`` at padding (``(B, past + T)`` with a cache).
            cache: from ``self.decoder.new_cache()`` for incremental decoding, updated in place.

        Raises:
            ValueError: a ``padding_mask`` that is not bool or not ``(B, past + T)``.
        """
        start = cache[0].self_attn.length if cache else 0
        check_padding_mask(padding_mask, "padding_mask", (tokens.shape[0], start + tokens.shape[1]), "(B, past + T)")
        x = self.embed(tokens, start)
        return self.output(self.decoder(x, padding_mask, rotary=self.embed.rotary, cache=cache))


def count_parameters(module: nn.Module) -> int:
    """The number of distinct trainable parameters (tied weights counted once), without the rows that pad a
    vocabulary to ``vocab_multiple`` (no token uses them: the count is the unpadded network's)."""
    total = sum(p.numel() for p in module.parameters() if p.requires_grad)
    padding = {
        id(sub.weight): sub.padding_rows * sub.weight.shape[1]
        for sub in module.modules()
        if getattr(sub, "padding_rows", 0) and sub.weight.requires_grad
    }
    return total - sum(padding.values())


__all__ = ["DecoderOnly", "EncoderDecoder", "EncoderOnly", "OutputProjection", "count_parameters"]
