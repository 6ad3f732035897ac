"""Attention of a recurrent decoder over the encoder's states, one query per step (Bahdanau et al. 2015;
Luong et al. 2015). Each ``model.rnn_attention`` is one class registered in :data:`zoo.registry.RNN_ATTENTIONS`;
``none`` (Sutskever et al. 2014) and ``context`` (Cho et al. 2014) are registered too, as decoders without an
alignment, so that every value of the knob is one registry name.

Shapes: ``B`` sentences, ``S`` source positions, ``T`` target positions, ``H`` the decoder's hidden width,
``C`` the width of the encoder's states (``2 H_enc`` for a bidirectional encoder).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from zoo.registry import RNN_ATTENTIONS


def masked_softmax(scores: Tensor, padding_mask: Tensor | None) -> Tensor:
    """Softmax over the last dim with padding at weight exactly 0.

    Args:
        scores: ``(B, T, S)`` alignment scores.
        padding_mask: ``(B, S)`` bool, ``True`` at source padding; ``None``: none.

    Returns:
        ``(B, T, S)`` weights summing to 1 over the real positions; a row whose positions are all padding gets
        all-zero weights (finite: its context vector is zero), not the NaN of a softmax over ``-inf`` only.
    """
    if padding_mask is None:
        return torch.softmax(scores, dim=-1)
    mask = padding_mask[:, None, :]
    hidden = mask & ~mask.all(dim=-1, keepdim=True)  # a fully padded row is left unmasked here, zeroed below
    return torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1).masked_fill(mask, 0.0)


class Alignment(nn.Module):
    """The base of the attentions: ``scores`` is the model's; :meth:`forward` normalises them and takes the
    context vector, c_t = sum_s a_t(s) h_s (Bahdanau et al. 2015, eq. 5; Luong et al. 2015, section 3).

    Class attributes:
        attends: whether the decoder has an alignment at all (``False`` for ``none`` and ``context``).
        previous_state: the query is the decoder's previous state s_{t-1} (Bahdanau), not its current h_t
            (Luong): the decoder then runs one step at a time.

    Args:
        hidden_size: ``H``, the decoder's hidden width.
        memory_size: ``C``, the width of the encoder's states.
    """

    attends = True
    previous_state = False

    def __init__(self, hidden_size: int, memory_size: int) -> None:
        super().__init__()
        self.hidden_size, self.memory_size = hidden_size, memory_size
        self.keep_weights, self.weights = False, None  # the last weights, kept inside recorded_attention

    def keys(self, memory: Tensor) -> Tensor:
        """What the scores compare queries with, computed once per sentence: ``(B, S, C)`` -> ``(B, S, K)``."""
        return memory

    def scores(self, query: Tensor, keys: Tensor) -> Tensor:
        """``(B, T, H)`` queries and ``(B, S, K)`` keys -> ``(B, T, S)`` scores."""
        raise NotImplementedError

    def forward(self, query: Tensor, keys: Tensor, memory: Tensor, padding_mask: Tensor | None) -> Tensor:
        """``(B, T, H)`` queries, ``(B, S, K)`` keys from :meth:`keys`, ``(B, S, C)`` memory and its ``(B, S)``
        padding mask -> ``(B, T, C)`` context vectors (weights of ``(B, 1, T, S)`` kept when asked)."""
        weights = masked_softmax(self.scores(query, keys), padding_mask)
        if self.keep_weights:
            self.weights = weights[:, None] if self.weights is None else torch.cat([self.weights, weights[:, None]], 2)
        return weights @ memory


@RNN_ATTENTIONS.register("none")
class NoAttention(Alignment):
    """No attention: the encoder's final state starts the decoder and is all it sees of the source
    (Sutskever et al. 2014, section 2)."""

    attends = False


@RNN_ATTENTIONS.register("context")
class FixedContext(Alignment):
    """No alignment, but the encoder's summary c (its final state) is an input of every decoder step and of the
    output layer: s_t = f(s_{t-1}, y_{t-1}, c), p(y_t) = g(s_t, y_{t-1}, c) (Cho et al. 2014, section 2.2,
    eq. 5 and 6)."""

    attends = False


@RNN_ATTENTIONS.register("additive")
class AdditiveAttention(Alignment):
    """e_ts = v_a^T tanh(W_a s_{t-1} + U_a h_s) (Bahdanau et al. 2015, eq. 6 and appendix A.1.2), from the
    decoder's *previous* state; ``U_a h_s`` is computed once per sentence (:meth:`keys`)."""

    previous_state = True

    def __init__(self, hidden_size: int, memory_size: int) -> None:
        super().__init__(hidden_size, memory_size)
        self.query_proj = nn.Linear(hidden_size, hidden_size, bias=False)  # W_a
        self.key_proj = nn.Linear(memory_size, hidden_size, bias=False)  # U_a
        self.v = nn.Linear(hidden_size, 1, bias=False)  # v_a

    def keys(self, memory: Tensor) -> Tensor:
        return self.key_proj(memory)

    def scores(self, query: Tensor, keys: Tensor) -> Tensor:
        return self.v(torch.tanh(self.query_proj(query)[:, :, None] + keys[:, None])).squeeze(-1)


@RNN_ATTENTIONS.register("dot")
class DotAttention(Alignment):
    """score(h_t, h_s) = h_t^T h_s (Luong et al. 2015, section 3.1, eq. 8). A bidirectional encoder's states
    are ``2 H`` wide: their two directions are summed into the key (no parameters, as the score has none)."""

    def keys(self, memory: Tensor) -> Tensor:
        if self.memory_size == self.hidden_size:
            return memory
        if self.memory_size != 2 * self.hidden_size:
            raise ValueError(
                f"model.rnn_attention='dot' compares decoder states of {self.hidden_size} with encoder states of "
                f"{self.memory_size}; use 'general' or 'concat', which project them"
            )
        forward, backward = memory.chunk(2, dim=-1)
        return forward + backward

    def scores(self, query: Tensor, keys: Tensor) -> Tensor:
        return query @ keys.transpose(1, 2)


@RNN_ATTENTIONS.register("general")
class GeneralAttention(Alignment):
    """score(h_t, h_s) = h_t^T W_a h_s (Luong et al. 2015, eq. 8); ``W_a h_s`` is computed once (:meth:`keys`)."""

    def __init__(self, hidden_size: int, memory_size: int) -> None:
        super().__init__(hidden_size, memory_size)
        self.key_proj = nn.Linear(memory_size, hidden_size, bias=False)  # W_a

    def keys(self, memory: Tensor) -> Tensor:
        return self.key_proj(memory)

    def scores(self, query: Tensor, keys: Tensor) -> Tensor:
        return query @ keys.transpose(1, 2)


@RNN_ATTENTIONS.register("concat")
class ConcatAttention(AdditiveAttention):
    """score(h_t, h_s) = v_a^T tanh(W_a [h_t; h_s]) (Luong et al. 2015, eq. 8): Bahdanau's score (``W_a = [W, U]``
    split so that ``U h_s`` is computed once), but from the decoder's *current* state h_t."""

    previous_state = False
