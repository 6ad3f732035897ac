"""The three recurrent backbones, the counterparts of :mod:`zoo.nn.transformer`'s, built from the same
encoder and cells: an encoder-decoder (Sutskever et al. 2014; Cho et al. 2014; Bahdanau et al. 2015; Luong et
al. 2015), a language model (Mikolov et al. 2010; Zaremba et al. 2014) and an encoder for classifiers (Tai et
al. 2015's BiLSTM baseline)."""

from __future__ import annotations

from torch import Tensor, nn

from zoo.nn.masks import check_padding_mask
from zoo.nn.recurrent.config import RecurrentConfig, State
from zoo.nn.recurrent.decoder import RecurrentDecoder
from zoo.nn.recurrent.encoder import Encoded, RecurrentEncoder


def embedding(vocab_size: int, config: RecurrentConfig, pad_id: int) -> nn.Embedding:
    """A ``(V, E)`` table, N(0, 1) as torch's, with the padding row zero and frozen."""
    return nn.Embedding(vocab_size, config.d_embed, padding_idx=pad_id)


class RecurrentEncoderDecoder(nn.Module):
    """A recurrent encoder and decoder with ``config.attention`` between them (see :class:`RecurrentDecoder`).

    Args:
        config: the recurrent knobs.
        src_vocab_size, tgt_vocab_size: the vocabularies.
        num_encoder_layers, num_decoder_layers: the depths (anchors: 2 and 2 for ``none``, 1 and 1 otherwise).
        share_embeddings: one embedding for source and target (a joint vocabulary; needs equal sizes).
        pad_id: the padding id of both vocabularies.
        teacher_forcing: the probability of feeding the reference token in training (evaluation always feeds
            it: the teacher-forced loss and perplexity).

    Raises:
        ValueError: for bad knobs (:class:`RecurrentConfig`, input feeding without Luong's attention) or
            ``share_embeddings`` with two sizes.

    Example:
        >>> model = RecurrentEncoderDecoder(RecurrentConfig(d_embed=8, hidden_size=16), 30, 30, 1, 1)
        >>> model(torch.randint(1, 30, (2, 7)), torch.randint(1, 30, (2, 5))).shape
        torch.Size([2, 5, 30])
    """

    def __init__(
        self,
        config: RecurrentConfig,
        src_vocab_size: int,
        tgt_vocab_size: int,
        num_encoder_layers: int = 1,
        num_decoder_layers: int = 1,
        share_embeddings: bool = False,
        pad_id: int = 0,
        teacher_forcing: float = 1.0,
    ) -> None:
        super().__init__()
        if share_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError(
                f"share_embeddings needs one vocabulary, but src_vocab_size={src_vocab_size} and "
                f"tgt_vocab_size={tgt_vocab_size}"
            )
        self.config, self.pad_id, self.teacher_forcing = config, pad_id, teacher_forcing
        source_embedding = embedding(src_vocab_size, config, pad_id)
        target_embedding = source_embedding if share_embeddings else embedding(tgt_vocab_size, config, pad_id)
        self.encoder = RecurrentEncoder(config, num_encoder_layers, source_embedding)
        self.decoder = RecurrentDecoder(
            config, num_decoder_layers, self.encoder.output_size, tgt_vocab_size, target_embedding
        )

    def encode(self, src: Tensor, src_padding_mask: Tensor | None = None) -> Encoded:
        """``(B, S)`` ids (``(B, S)`` bool padding mask, ``True`` at pads) -> the encoder's :class:`Encoded`."""
        return self.encoder(src, src_padding_mask)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_padding_mask: Tensor | None = None,
        tgt_padding_mask: Tensor | None = None,
    ) -> Tensor:
        """``(B, S)`` source and ``(B, T)`` shifted target ids -> ``(B, T, V)`` logits. ``tgt_padding_mask`` is
        checked and not needed: the target is right-padded and read left to right, so no real position ever
        reads a padded one."""
        check_padding_mask(tgt_padding_mask, "tgt_padding_mask", tuple(tgt.shape))
        source, state = self.decoder.start(self.encode(src, src_padding_mask))
        return self.decoder(tgt, source, state, self.teacher_forcing if self.training else 1.0)


class RecurrentLanguageModel(nn.Module):
    """Embeddings, a stack of LSTM/GRU layers and an output layer: p(x_t | x_<t) from the state after x_<t.

    Args:
        config: the recurrent knobs (``bidirectional`` is not used: a language model reads left to right).
        vocab_size: ``V``.
        num_layers: ``L``.
        tie_embeddings: the output layer reuses the embedding (Press and Wolf 2017; Inan et al. 2017); needs
            ``E == H``.
        pad_id: the padding id.

    Raises:
        ValueError: ``tie_embeddings`` with ``E != H``, naming both knobs.
    """

    def __init__(
        self,
        config: RecurrentConfig,
        vocab_size: int,
        num_layers: int = 2,
        tie_embeddings: bool = True,
        pad_id: int = 0,
    ) -> None:
        super().__init__()
        if tie_embeddings and config.d_embed != config.hidden_size:
            raise ValueError(
                f"model.tie_embeddings=true needs model.rnn_hidden equal to model.d_model={config.d_embed}, "
                f"not {config.hidden_size}; set --model.rnn_hidden=null or --model.tie_embeddings=false"
            )
        self.config, self.pad_id = config, pad_id
        self.embedding = embedding(vocab_size, config, pad_id)
        self.dropout = nn.Dropout(config.dropout)
        self.rnn = config.layer(config.d_embed, num_layers)
        self.output = nn.Linear(config.hidden_size, vocab_size)
        if tie_embeddings:
            self.output.weight = self.embedding.weight

    def run(self, tokens: Tensor, state: State | None = None) -> tuple[Tensor, State]:
        """``(B, T)`` ids after ``state`` (``None``: the start) -> ``(B, T, V)`` logits and the state after them."""
        states, state = self.rnn(self.dropout(self.embedding(tokens)), state)
        return self.output(self.dropout(states)), state

    def forward(self, tokens: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """``(B, T)`` ids -> ``(B, T, V)`` next-token logits; a ``(B, T)`` bool padding mask is checked and not
        needed (right padding is never read by a real position)."""
        check_padding_mask(padding_mask, "padding_mask", tuple(tokens.shape))
        return self.run(tokens)[0]


class RecurrentEncoderOnly(nn.Module):
    """A (bidirectional) recurrent encoder whose states a classifier pools (``model.pooling``).

    Args:
        config: the recurrent knobs.
        vocab_size: ``V``.
        num_layers: ``L``.
        pad_id: the padding id.

    Attributes:
        output_size: ``C``, the width of each state (``2 H`` when bidirectional).
        directions: 1 or 2, the directions side by side in each state (``model.pooling=final`` reads each one's
            final state).
    """

    def __init__(self, config: RecurrentConfig, vocab_size: int, num_layers: int = 1, pad_id: int = 0) -> None:
        super().__init__()
        self.config, self.pad_id = config, pad_id
        self.encoder = RecurrentEncoder(config, num_layers, embedding(vocab_size, config, pad_id))
        self.output_size, self.directions = self.encoder.output_size, self.encoder.directions

    def forward(self, tokens: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """``(B, S)`` ids and their ``(B, S)`` bool padding mask -> ``(B, S, C)`` states, zero at padding."""
        return self.encoder(tokens, padding_mask).memory


__all__ = ["RecurrentEncoderDecoder", "RecurrentEncoderOnly", "RecurrentLanguageModel"]
