"""The knobs of the recurrent networks as one typed, validated dataclass, and the two cells."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import Tensor, nn

from zoo.messages import check_between
from zoo.registry import RNN_ATTENTIONS, RNN_CELLS

RNN_CELLS.register("lstm")(nn.LSTM)  # Hochreiter and Schmidhuber 1997; state (h, c)
RNN_CELLS.register("gru")(nn.GRU)  # Cho et al. 2014, section 2.3; state h

LUONG = ("dot", "general", "concat")  # the attentions scored from the current state (Luong et al. 2015)
State = Tensor | tuple[Tensor, Tensor]  # a GRU's h, or an LSTM's (h, c): each (L, B, H)


def map_state(state: State, fn: Callable[[Tensor], Tensor]) -> State:
    """``fn`` applied to ``h`` (and ``c``) of a cell's state: reordering for beam search, repeating per beam."""
    return tuple(fn(part) for part in state) if isinstance(state, tuple) else fn(state)


def top_hidden(state: State) -> Tensor:
    """``(B, H)``: the last layer's ``h`` of an ``(L, B, H)`` state (``h`` of an LSTM's ``(h, c)``)."""
    return (state[0] if isinstance(state, tuple) else state)[-1]


@dataclass
class RecurrentConfig:
    """Sizes and choices of a recurrent network.

    Args:
        cell: ``lstm`` or ``gru`` (:data:`zoo.registry.RNN_CELLS`).
        d_embed: ``E``, the width of the token embeddings (``model.d_model``; bentrevett's anchors: 256).
        hidden_size: ``H``, each direction's state width (``model.rnn_hidden``; anchors: 512).
        dropout: on the embeddings, between layers and before the output layer (anchors: 0.5).
        bidirectional: the encoder reads the source both ways (Bahdanau et al. 2015, section 3.2).
        attention: ``model.rnn_attention``, one of :data:`zoo.registry.RNN_ATTENTIONS`.
        input_feeding: feed the attentional vector h~_{t-1} into step t (Luong et al. 2015, section 3.3); only
            for the attentions scored from the current state (``dot``, ``general``, ``concat``).
        reverse_source: the encoder reads each source sentence backwards (Sutskever et al. 2014, section 3.3).

    Raises:
        ValueError: one line naming the field, for an unknown name, a size below 1, a dropout outside [0, 1) or
            input feeding without Luong's attention.
    """

    cell: str = "lstm"
    d_embed: int = 256
    hidden_size: int = 512
    dropout: float = 0.0
    bidirectional: bool = True
    attention: str = "additive"
    input_feeding: bool = False
    reverse_source: bool = False

    def __post_init__(self) -> None:
        RNN_CELLS.check(self.cell)
        RNN_ATTENTIONS.check(self.attention)
        for field, value in (("d_model", self.d_embed), ("rnn_hidden", self.hidden_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"model.{field}={value!r} is not valid; it must be a positive integer")
        check_between("model.dropout", self.dropout, 0.0, 1.0)
        if self.input_feeding and self.attention not in LUONG:
            raise ValueError(
                f"model.input_feeding=true feeds Luong et al.'s attentional vector; model.rnn_attention="
                f"{self.attention!r} has none (use {', '.join(LUONG)})"
            )

    def layer(self, input_size: int, num_layers: int, bidirectional: bool = False) -> nn.Module:
        """torch's ``nn.LSTM`` or ``nn.GRU`` (cuDNN on a GPU) of ``num_layers`` over ``(B, T, input_size)``."""
        dropout = self.dropout if num_layers > 1 else 0.0  # torch warns of dropout on a single layer's output
        return RNN_CELLS.build(
            self.cell,
            input_size,
            self.hidden_size,
            num_layers,
            batch_first=True,
            dropout=dropout,
            bidirectional=bidirectional,
        )
