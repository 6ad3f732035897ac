"""Recurrent networks, the systems the Transformer replaced, on torch's ``nn.LSTM`` and ``nn.GRU``.

- ``config``: the recurrent knobs and the two cells (``model.rnn_cell``)
- ``encoder``: a (bidirectional) encoder over packed sequences
- ``attention``: the six ``model.rnn_attention`` choices (none, context, additive, dot, general, concat)
- ``decoder``: the decoder, its state (beam search's cache), input feeding and teacher forcing
- ``models``: the encoder-decoder, the language model and the classifier's encoder
"""

from zoo.nn.recurrent.attention import Alignment, masked_softmax
from zoo.nn.recurrent.config import RecurrentConfig, map_state
from zoo.nn.recurrent.decoder import DecoderState, RecurrentDecoder, Source
from zoo.nn.recurrent.encoder import Encoded, RecurrentEncoder, run_packed
from zoo.nn.recurrent.models import RecurrentEncoderDecoder, RecurrentEncoderOnly, RecurrentLanguageModel

__all__ = [
    "Alignment",
    "DecoderState",
    "Encoded",
    "RecurrentConfig",
    "RecurrentDecoder",
    "RecurrentEncoder",
    "RecurrentEncoderDecoder",
    "RecurrentEncoderOnly",
    "RecurrentLanguageModel",
    "Source",
    "map_state",
    "masked_softmax",
    "run_packed",
]
