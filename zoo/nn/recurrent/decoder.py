"""A recurrent decoder with one of the six ``model.rnn_attention`` choices (:mod:`.attention`), input feeding
and teacher forcing; its state, the input-feed vector included, is what beam search reorders.

Shapes: ``B`` sentences, ``S`` source and ``T`` target positions, ``E`` embedding, ``H`` decoder state and
``C`` encoder state widths, ``L`` decoder layers, ``V`` the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from zoo.nn.recurrent.attention import Alignment
from zoo.nn.recurrent.config import RecurrentConfig, State, map_state, top_hidden
from zoo.nn.recurrent.encoder import Encoded
from zoo.registry import RNN_ATTENTIONS


@dataclass
class DecoderState:
    """The decoder's recurrent state between steps: the cell's ``(L, B, H)`` state (an LSTM's ``(h, c)``) and
    the attentional vector h~_{t-1} ``(B, H)`` fed into the next step (Luong et al. 2015, section 3.3), or
    ``None`` without input feeding."""

    cell: State
    feed: Tensor | None = None

    def reorder(self, index: Tensor) -> None:
        """Keep rows ``index`` (``(N,)`` long) of every part: beam search's choice of hypotheses."""
        self.cell = map_state(self.cell, lambda part: part.index_select(1, index))
        self.feed = None if self.feed is None else self.feed.index_select(0, index)


@dataclass
class Source:
    """The encoder's output with the attention's keys, computed once per sentence; ``summary`` ``(B, C)`` is
    the top layer's final state, Cho et al.'s fixed context c."""

    encoded: Encoded
    keys: Tensor
    summary: Tensor


class RecurrentDecoder(nn.Module):
    """An LSTM/GRU decoder, its attention and its output layer.

    Step ``t`` (``e_t`` the embedding of y_{t-1}, ``c`` the context, ``s`` the top layer's state):

    - ``none``: s_t = f(s_{t-1}, e_t); p(y_t) = softmax(W s_t) (Sutskever et al. 2014).
    - ``context``: s_t = f(s_{t-1}, [e_t; c]); p(y_t) = softmax(W [s_t; c; e_t]) (Cho et al. 2014, eq. 5-6).
    - ``additive``: c_t from s_{t-1} (eq. 6); s_t = f(s_{t-1}, [e_t; c_t]); p(y_t) = softmax(W [s_t; c_t; e_t])
      (Bahdanau et al. 2015, appendix A.2.2, with bentrevett's readout, not the maxout).
    - ``dot``/``general``/``concat``: s_t = f(s_{t-1}, [e_t; h~_{t-1}]) (h~ only with input feeding); c_t from
      s_t (eq. 8); h~_t = tanh(W_c [c_t; s_t]) (eq. 5); p(y_t) = softmax(W_s h~_t) (eq. 6) (Luong et al. 2015).

    The initial state of every layer is tanh(W_h f) (an LSTM's cell state W_c f), ``f`` the encoder's final
    state of the same layer, or of its top layer when the depths differ (Bahdanau et al. 2015, A.2.2).

    Args:
        config: the recurrent knobs.
        num_layers: ``L``.
        memory_size: ``C``.
        vocab_size: ``V``.
        embedding: ``(V, E)`` target embeddings.
    """

    def __init__(
        self, config: RecurrentConfig, num_layers: int, memory_size: int, vocab_size: int, embedding: nn.Embedding
    ) -> None:
        super().__init__()
        hidden = config.hidden_size
        self.embedding, self.num_layers, self.dropout = embedding, num_layers, nn.Dropout(config.dropout)
        self.attention: Alignment = RNN_ATTENTIONS.build(config.attention, hidden, memory_size)
        self.fixed_context = config.attention == "context"
        self.luong = self.attention.attends and not self.attention.previous_state
        self.input_feeding = config.input_feeding
        takes_context = self.fixed_context or self.attention.previous_state
        input_size = config.d_embed + memory_size * takes_context + hidden * self.input_feeding
        self.rnn = config.layer(input_size, num_layers)
        self.bridge_h = nn.Linear(memory_size, hidden)
        self.bridge_c = nn.Linear(memory_size, hidden) if config.cell == "lstm" else None
        self.combine = nn.Linear(memory_size + hidden, hidden, bias=False) if self.luong else None  # W_c
        readout = hidden + (memory_size + config.d_embed) * takes_context
        self.output = nn.Linear(readout, vocab_size)

    def start(self, encoded: Encoded) -> tuple[Source, DecoderState]:
        """The attention's keys and the initial state (see the class) from the encoder's output."""
        final = encoded.final
        h_final = final[0] if isinstance(final, tuple) else final
        layers = h_final if h_final.shape[0] == self.num_layers else h_final[-1:].expand(self.num_layers, -1, -1)
        cell = torch.tanh(self.bridge_h(layers)).contiguous()
        if self.bridge_c is not None:
            c_final = final[1] if final[1].shape[0] == self.num_layers else final[1][-1:].expand_as(layers)
            cell = (cell, self.bridge_c(c_final).contiguous())
        batch = h_final.shape[1]
        feed = h_final.new_zeros(batch, self.rnn.hidden_size) if self.input_feeding else None  # h~_0 = 0
        source = Source(encoded, self.attention.keys(encoded.memory), h_final[-1])
        return source, DecoderState(cell, feed)

    def _attend(self, query: Tensor, source: Source) -> Tensor:
        encoded = source.encoded
        return self.attention(query, source.keys, encoded.memory, encoded.padding_mask)

    def _readout(self, states: Tensor, context: Tensor | None, embedded: Tensor) -> Tensor:
        """``(B, T, H)`` top states -> ``(B, T, R)``: the output layer's input (Luong's h~_t for dot, ...)."""
        if self.luong:
            return torch.tanh(self.combine(torch.cat([context, states], dim=-1)))
        return states if context is None else torch.cat([states, context, embedded], dim=-1)

    def step(self, tokens: Tensor, source: Source, state: DecoderState) -> tuple[Tensor, DecoderState]:
        """One step: ``(B,)`` previous tokens -> ``(B, V)`` logits and the next state (``state`` is unchanged)."""
        embedded = self.dropout(self.embedding(tokens))[:, None]  # (B, 1, E)
        context = None
        if self.fixed_context:
            context = source.summary[:, None]
        elif self.attention.previous_state:
            context = self._attend(top_hidden(state.cell)[:, None], source)  # from s_{t-1}
        inputs = [embedded] + ([] if context is None else [context])
        inputs += [state.feed[:, None]] if self.input_feeding else []
        states, cell = self.rnn(torch.cat(inputs, dim=-1), state.cell)
        if self.luong:
            context = self._attend(states, source)  # from s_t
        readout = self._readout(states, context, embedded)
        feed = readout[:, 0] if self.input_feeding else None
        return self.output(self.dropout(readout))[:, 0], DecoderState(cell, feed)

    def forward(self, tgt: Tensor, source: Source, state: DecoderState, teacher_forcing: float = 1.0) -> Tensor:
        """``(B, T)`` shifted target ids -> ``(B, T, V)`` logits.

        With ``teacher_forcing`` 1 each step reads the reference token y_{t-1}; below 1 each sentence reads its
        reference with that probability and its own previous argmax otherwise (Bengio et al. 2015's
        "always sampling" mixed per step; bentrevett's anchors: 0.5). The whole sequence runs through torch's
        layer in one call where nothing needs the previous step (``none``, ``context``, Luong's without input
        feeding, under full teacher forcing); otherwise step by step.
        """
        if teacher_forcing >= 1.0 and not (self.attention.previous_state or self.input_feeding):
            return self._whole_sequence(tgt, source, state)
        logits, token = [], tgt[:, 0]
        for t in range(tgt.shape[1]):
            if t and teacher_forcing < 1.0:
                reference = torch.rand(tgt.shape[0], device=tgt.device) < teacher_forcing
                token = torch.where(reference, tgt[:, t], logits[-1].argmax(dim=-1))
            elif t:
                token = tgt[:, t]
            step_logits, state = self.step(token, source, state)
            logits.append(step_logits)
        return torch.stack(logits, dim=1)

    def _whole_sequence(self, tgt: Tensor, source: Source, state: DecoderState) -> Tensor:
        embedded = self.dropout(self.embedding(tgt))
        context = source.summary[:, None].expand(-1, tgt.shape[1], -1) if self.fixed_context else None
        inputs = embedded if context is None else torch.cat([embedded, context], dim=-1)
        states, _ = self.rnn(inputs, state.cell)
        if self.luong:
            context = self._attend(states, source)
        return self.output(self.dropout(self._readout(states, context, embedded)))
