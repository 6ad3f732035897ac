"""The decoding steps of the recurrent networks (:mod:`zoo.nn.recurrent`) behind the interface of
:mod:`.steps`: greedy search, sampling and beam search run them as they run the Transformer's, and the
recurrent state (an LSTM's ``(h, c)``, the input-feed vector h~ included) is the cache beam search reorders.
:func:`encoder_decoder_step` and :func:`decoder_only_step` pick the step of either kind of network."""

from __future__ import annotations

from torch import Tensor, nn

from zoo.decoding.steps import NEVER_NEXT_IN_TEXT, DecoderOnlyStep, EncoderDecoderStep, Step, log_probabilities
from zoo.nn.recurrent import RecurrentEncoderDecoder, RecurrentLanguageModel, map_state


class RecurrentEncoderDecoderStep:
    """One decoder step of a :class:`RecurrentEncoderDecoder` over ``copies`` hypotheses per sentence (rows
    ``b * copies ...`` are sentence ``b``'s): the encoder runs once, its states are repeated per hypothesis.

    Args:
        model: the network, in eval mode.
        src: ``(B, S)`` source ids.
        src_padding_mask: ``(B, S)`` bool, ``True`` at padding.
        copies: hypotheses per sentence (the beam size).
    """

    def __init__(self, model: RecurrentEncoderDecoder, src: Tensor, src_padding_mask: Tensor | None, copies: int = 1):
        self.model = model
        encoded = model.encode(src, src_padding_mask).repeat_interleave(copies)
        self.source, self.state = model.decoder.start(encoded)

    def __call__(self, tokens: Tensor) -> Tensor:
        logits, self.state = self.model.decoder.step(tokens[:, -1], self.source, self.state)
        return log_probabilities(logits)

    def reorder(self, index: Tensor) -> None:
        self.state.reorder(index)


class RecurrentLanguageModelStep:
    """The next token of a :class:`RecurrentLanguageModel` from its state: a prompt of any length is read once,
    each later step reads one token (no window: a recurrent state has no positions to run out of).

    Args:
        model: the language model, in eval mode.
    """

    def __init__(self, model: RecurrentLanguageModel) -> None:
        self.model, self.state = model, None

    def __call__(self, tokens: Tensor) -> Tensor:
        logits, self.state = self.model.run(tokens, self.state)
        return log_probabilities(logits[:, -1], NEVER_NEXT_IN_TEXT)

    def reorder(self, index: Tensor) -> None:
        self.state = map_state(self.state, lambda part: part.index_select(1, index))


def encoder_decoder_step(model: nn.Module, src: Tensor, src_padding_mask: Tensor | None, copies: int = 1) -> Step:
    """The decoding step of an encoder-decoder, Transformer or recurrent (arguments of :class:`EncoderDecoderStep`)."""
    if isinstance(model, RecurrentEncoderDecoder):
        return RecurrentEncoderDecoderStep(model, src, src_padding_mask, copies)
    return EncoderDecoderStep(model, src, src_padding_mask, copies)


def decoder_only_step(model: nn.Module, window: int | None = None) -> Step:
    """The decoding step of a language model, Transformer (:class:`DecoderOnlyStep`, ``window`` its context) or
    recurrent (no window)."""
    if isinstance(model, RecurrentLanguageModel):
        return RecurrentLanguageModelStep(model)
    return DecoderOnlyStep(model, window)
