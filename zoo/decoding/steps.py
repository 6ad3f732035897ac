"""One decoding step of each generating backbone, behind one interface: new tokens in, the log-probabilities
of the next token out, with a key/value cache that beam search can reorder. The search algorithms
(:mod:`zoo.decoding.sampling`, :mod:`zoo.decoding.beam`) see only this interface, so they serve the
encoder-decoder and the decoder-only model alike."""

from __future__ import annotations

from typing import Protocol

import torch
from torch import Tensor

from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.nn import DecoderOnly, EncoderDecoder


class Step(Protocol):
    """``step(tokens)``: ``(N, T)`` new tokens of each of ``N`` hypotheses -> ``(N, V)`` log-probabilities
    of the token after them; ``step.reorder(index)`` keeps hypotheses ``index`` (``(N,)`` long) of the state."""

    def __call__(self, tokens: Tensor) -> Tensor: ...

    def reorder(self, index: Tensor) -> None: ...


# Ids that are never a training target, so never a next token: padding and <bos> for every model. A language
# model's training stream has no <eos> either (text is cut into blocks), so it never ends a continuation.
NEVER_NEXT = (PAD_ID, BOS_ID)
NEVER_NEXT_IN_TEXT = (PAD_ID, BOS_ID, EOS_ID)


def log_probabilities(logits: Tensor, never: tuple[int, ...] = NEVER_NEXT) -> Tensor:
    """``(N, V)`` logits -> log-probabilities, in float32 at least (also under bfloat16 autocast: beam scores
    add one up per token, and bfloat16's 8-bit mantissa would round their sums). The ids in ``never`` get
    ``-inf`` (after the softmax, so the others keep the model's own log-probabilities): a barely trained
    model would otherwise sample padding, which decodes to nothing."""
    log_probs = torch.log_softmax(logits.float() if logits.element_size() < 4 else logits, dim=-1)
    never = [i for i in never if i < log_probs.shape[-1]]
    return log_probs.index_fill(-1, torch.tensor(never, device=log_probs.device), float("-inf")) if never else log_probs


class EncoderDecoderStep:
    """Incremental decoding of an :class:`EncoderDecoder` over ``copies`` hypotheses per source sentence.

    The encoder runs once per sentence; its output is repeated for the ``copies`` hypotheses (rows
    ``b * copies ... b * copies + copies - 1`` belong to sentence ``b``), and the cross-attention keys and
    values are computed at the first step and then read from the cache.

    Args:
        model: the encoder-decoder, in eval mode.
        src: ``(B, S)`` source ids.
        src_padding_mask: ``(B, S)`` bool, ``True`` at padding.
        copies: hypotheses per sentence (the beam size).
    """

    def __init__(self, model: EncoderDecoder, src: Tensor, src_padding_mask: Tensor | None, copies: int = 1):
        self.model = model
        memory = model.encode(src, src_padding_mask)
        self.memory = memory.repeat_interleave(copies, dim=0)
        self.mask = None if src_padding_mask is None else src_padding_mask.repeat_interleave(copies, dim=0)
        self.cache = model.decoder.new_cache()

    def __call__(self, tokens: Tensor) -> Tensor:
        hidden = self.model.decode(tokens, self.memory, None, self.mask, self.cache)[:, -1]
        return log_probabilities(self.model.output(hidden))

    def reorder(self, index: Tensor) -> None:
        for layer in self.cache:
            layer.reorder(index)


class DecoderOnlyStep:
    """Incremental decoding of a :class:`DecoderOnly` language model.

    With ``window``, the context slides as in nanoGPT's ``generate``: once the tokens no longer fit in
    ``window`` positions, each step reruns the model on the last ``window`` tokens at positions
    ``0 ... window - 1`` (the only way to continue a model with learned positions past ``max_len``).

    Args:
        model: the language model, in eval mode.
        window: the most positions the model sees at once (``None``: no limit).
    """

    def __init__(self, model: DecoderOnly, window: int | None = None) -> None:
        self.model, self.window = model, window
        self.cache = model.decoder.new_cache()
        self.history: Tensor | None = None

    def __call__(self, tokens: Tensor) -> Tensor:
        self.history = tokens if self.history is None else torch.cat([self.history, tokens], dim=1)
        if self.window is not None and self.history.shape[1] > self.window:
            self.cache = self.model.decoder.new_cache()
            tokens = self.history[:, -self.window :]
        with torch.compiler.set_stance("force_eager"):  # under model.compile: no graph per cache length
            logits = self.model(tokens, None, self.cache)[:, -1]
        return log_probabilities(logits, NEVER_NEXT_IN_TEXT)

    def reorder(self, index: Tensor) -> None:
        self.history = self.history.index_select(0, index)
        for layer in self.cache:
            layer.reorder(index)
