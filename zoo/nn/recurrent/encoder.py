"""A recurrent encoder over packed sequences (Sutskever et al. 2014; Bahdanau et al. 2015, section 3.2)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from zoo.nn.masks import check_padding_mask
from zoo.nn.recurrent.config import RecurrentConfig, State, map_state


@dataclass
class Encoded:
    """What a recurrent encoder hands the decoder.

    Attributes:
        memory: ``(B, S, C)`` the top layer's states, both directions concatenated (``C = 2 H``) when
            bidirectional; zero at padding.
        final: the final state of each layer, directions concatenated: ``(L, B, C)`` (an LSTM's ``(h, c)``).
        padding_mask: ``(B, S)`` bool, ``True`` at padding, or ``None``.
    """

    memory: Tensor
    final: State
    padding_mask: Tensor | None

    def repeat_interleave(self, copies: int) -> Encoded:
        """Each sentence ``copies`` times in a row (its beams)."""
        mask = None if self.padding_mask is None else self.padding_mask.repeat_interleave(copies, 0)
        final = map_state(self.final, lambda part: part.repeat_interleave(copies, 1))
        return Encoded(self.memory.repeat_interleave(copies, 0), final, mask)


def run_packed(rnn: nn.Module, x: Tensor, padding_mask: Tensor | None, state: State | None = None):
    """Run torch's recurrent layer over ``(B, T, E)`` inputs as a packed sequence, so that no padding enters a
    state: each row's final state is at its own last real token, and the outputs are zero at padding.

    Args:
        rnn: an ``nn.LSTM``/``nn.GRU`` with ``batch_first=True``.
        x: ``(B, T, E)``.
        padding_mask: ``(B, T)`` bool, ``True`` at padding (right-padded rows); ``None``: no packing needed. A
            row of padding only is run over its first position (a pack holds no empty row).
        state: the initial state, or ``None`` (zeros).

    Returns:
        ``(B, T, D)`` outputs and the final state ``(L * directions, B, H)`` (an LSTM's ``(h, c)``).
    """
    if padding_mask is None:
        return rnn(x, state)
    lengths = (~padding_mask).sum(dim=1).clamp(min=1).cpu()
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    output, final = rnn(packed, state)
    output, _ = pad_packed_sequence(output, batch_first=True, total_length=x.shape[1])
    return output, final


def reversal(padding_mask: Tensor | None, shape: tuple[int, int], device) -> Tensor:
    """The ``(B, S)`` positions that read each row's source backwards, its last real token (zoo's ``<eos>``)
    kept last and its padding in place: ``w1 .. wn <eos> <pad>`` is read as ``wn .. w1 <eos> <pad>``, Sutskever
    et al. 2014's reversed source (section 3.3; bentrevett's notebook 1 reverses the words inside the framing).
    The map is its own inverse: it also puts states of the reversed reading back in reading order.

    Args:
        padding_mask: ``(B, S)`` bool, ``True`` at padding (right padding); ``None``: no padding.
        shape: ``(B, S)``.
        device: where the index lives.
    """
    positions = torch.arange(shape[1], device=device).expand(shape)
    lengths = shape[1] if padding_mask is None else (~padding_mask).sum(dim=1, keepdim=True)
    words = lengths - 1  # the end token stays where it is
    return torch.where(positions < words, words - 1 - positions, positions)


def join_directions(part: Tensor, directions: int) -> Tensor:
    """``(L * directions, B, H)`` -> ``(L, B, directions * H)``: each layer's forward and backward final states
    side by side."""
    layers = part.shape[0] // directions
    return part.view(layers, directions, *part.shape[1:]).permute(0, 2, 1, 3).flatten(2)


class RecurrentEncoder(nn.Module):
    """Embeddings, dropout and a (bidirectional) LSTM/GRU of ``num_layers`` run as one packed sequence; with
    ``config.reverse_source`` it reads each source backwards (:func:`reversal`), and its states are put back in
    reading order, so that an alignment's source axis is the sentence as written.

    Args:
        config: the recurrent knobs (``cell``, ``d_embed``, ``hidden_size``, ``dropout``, ``bidirectional``,
            ``reverse_source``).
        num_layers: ``L``.
        embedding: ``(V, E)`` token embeddings (shared with a decoder when the vocabulary is joint).

    Example:
        >>> from zoo.nn.recurrent import RecurrentConfig
        >>> config = RecurrentConfig(d_embed=8, hidden_size=6)
        >>> encoder = RecurrentEncoder(config, 2, nn.Embedding(20, 8, padding_idx=0))
        >>> encoded = encoder(torch.tensor([[5, 6, 7], [5, 0, 0]]), torch.tensor([[False] * 3, [False, True, True]]))
        >>> encoded.memory.shape, encoded.final[0].shape
        (torch.Size([2, 3, 12]), torch.Size([2, 2, 12]))
    """

    def __init__(self, config: RecurrentConfig, num_layers: int, embedding: nn.Embedding) -> None:
        super().__init__()
        self.embedding, self.dropout = embedding, nn.Dropout(config.dropout)
        self.directions = 2 if config.bidirectional else 1
        self.rnn = config.layer(config.d_embed, num_layers, config.bidirectional)
        self.output_size = self.directions * config.hidden_size
        self.reverse_source = config.reverse_source

    def forward(self, src: Tensor, padding_mask: Tensor | None = None) -> Encoded:
        """``(B, S)`` ids and their ``(B, S)`` bool padding mask (``True`` at padding) -> :class:`Encoded`.

        Raises:
            ValueError: a padding mask that is not bool or not ``(B, S)``.
        """
        check_padding_mask(padding_mask, "src_padding_mask", tuple(src.shape))
        order = reversal(padding_mask, tuple(src.shape), src.device) if self.reverse_source else None
        read = src if order is None else src.gather(1, order)
        memory, final = run_packed(self.rnn, self.dropout(self.embedding(read)), padding_mask)
        if order is not None:
            memory = memory.gather(1, order[..., None].expand_as(memory))
        final = map_state(final, lambda part: join_directions(part, self.directions))
        return Encoded(memory, final, padding_mask)


__all__ = ["Encoded", "RecurrentEncoder", "join_directions", "reversal", "run_packed"]
