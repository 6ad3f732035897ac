"""Plain PyTorch references for the recurrent benchmark (:mod:`benchmarks.recurrent`), written the way a tutorial
writes them: the attention model of the Multi30k anchors (a bidirectional GRU encoder, packed; Bahdanau et al.'s
additive attention from the previous decoder state; a GRU cell stepped in a Python loop, the output layer at each
step; bentrevett/pytorch-seq2seq's notebook 3 shape), and an LSTM language model (embedding, ``nn.LSTM``, tied
output layer). Each has exactly the parameters of the zoo's network of the same knobs (checked in the tests)."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class PlainAttentionModel(nn.Module):
    """Bahdanau et al. 2015 (appendix A) with bentrevett's readout: ``(B, S)`` source, ``(B, T)`` shifted target
    -> ``(B, T, V)`` logits.

    Args:
        vocab_size: ``V``, one vocabulary for both sides (the embedding is shared, as zoo's joint vocabulary).
        d_embed: ``E``.
        hidden_size: ``H``, each direction of the encoder and the decoder.
        dropout: on embeddings and before the output layer.
    """

    def __init__(self, vocab_size: int, d_embed: int, hidden_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        memory = 2 * hidden_size
        self.embedding = nn.Embedding(vocab_size, d_embed, padding_idx=0)
        self.dropout = nn.Dropout(dropout)
        self.encoder = nn.GRU(d_embed, hidden_size, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(memory, hidden_size)
        self.w_a = nn.Linear(hidden_size, hidden_size, bias=False)
        self.u_a = nn.Linear(memory, hidden_size, bias=False)
        self.v_a = nn.Linear(hidden_size, 1, bias=False)
        self.decoder = nn.GRUCell(d_embed + memory, hidden_size)
        self.output = nn.Linear(hidden_size + memory + d_embed, vocab_size)

    def encode(self, src: Tensor, src_padding_mask: Tensor) -> tuple[Tensor, Tensor]:
        lengths = (~src_padding_mask).sum(dim=1).cpu()
        packed = pack_padded_sequence(self.dropout(self.embedding(src)), lengths, True, enforce_sorted=False)
        memory, final = self.encoder(packed)
        memory, _ = pad_packed_sequence(memory, batch_first=True, total_length=src.shape[1])
        return memory, torch.tanh(self.bridge(torch.cat([final[0], final[1]], dim=-1)))

    def forward(self, src: Tensor, tgt: Tensor, src_padding_mask: Tensor) -> Tensor:
        memory, state = self.encode(src, src_padding_mask)
        keys = self.u_a(memory)
        logits = []
        for t in range(tgt.shape[1]):
            embedded = self.dropout(self.embedding(tgt[:, t]))
            scores = self.v_a(torch.tanh(self.w_a(state)[:, None] + keys)).squeeze(-1)
            weights = torch.softmax(scores.masked_fill(src_padding_mask, float("-inf")), dim=-1)
            context = torch.bmm(weights[:, None], memory)[:, 0]
            state = self.decoder(torch.cat([embedded, context], dim=-1), state)
            logits.append(self.output(self.dropout(torch.cat([state, context, embedded], dim=-1))))
        return torch.stack(logits, dim=1)


class PlainLanguageModel(nn.Module):
    """Embedding, ``nn.LSTM`` of ``num_layers``, a tied output layer: ``(B, T)`` ids -> ``(B, T, V)`` logits."""

    def __init__(self, vocab_size: int, d_embed: int, num_layers: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_embed, padding_idx=0)
        self.dropout = nn.Dropout(dropout)
        self.rnn = nn.LSTM(d_embed, d_embed, num_layers, batch_first=True, dropout=dropout)
        self.output = nn.Linear(d_embed, vocab_size)
        self.output.weight = self.embedding.weight

    def forward(self, tokens: Tensor) -> Tensor:
        states, _ = self.rnn(self.dropout(self.embedding(tokens)))
        return self.output(self.dropout(states))
