"""Pure-PyTorch Transformer components (no Lightning here): attention, positional encodings, norms,
feed-forward networks, poolings, layers and the three backbones. Importing it imports every module of the
package, which registers every component in :mod:`zoo.registry`: a new norm or positional encoding is one
new file here.

- ``config``: the architecture knobs as one dataclass; ``transformer``: the three backbones; ``layers``: one
  layer and a stack, shared by all three
- ``attention``, ``attention_maps``: multi-head attention (and its weights on request); ``masks``: the mask
  convention
- ``embedding``, ``positional``, ``concat_sinusoid``, ``alibi``, ``t5_bias``: embeddings and the positional
  encodings
- ``norm``, ``powernorm``, ``running_norm``, ``prefix_stats``: the norms
- ``feedforward``, ``activations``: the position-wise network and its activations; ``pooling``: a
  classifier's pooling
- ``recurrent``: the LSTM/GRU networks the Transformer replaced (``model.architecture=rnn``)
"""

import importlib
import pkgutil

from zoo.nn.attention import KeyValueCache, MultiHeadAttention
from zoo.nn.config import ARCHITECTURE_KNOBS, NORM_POSITIONS, TransformerConfig
from zoo.nn.embedding import Embedder
from zoo.nn.feedforward import FeedForward
from zoo.nn.layers import LayerCache, TransformerLayer, TransformerStack
from zoo.nn.masks import padding_mask
from zoo.nn.pooling import final_state_pooling, first_token_pooling, mean_pooling
from zoo.nn.powernorm import PowerNorm
from zoo.nn.transformer import DecoderOnly, EncoderDecoder, EncoderOnly, count_parameters
from zoo.registry import ACTIVATIONS, NORMS, POSITIONAL_ENCODINGS

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "ACTIVATIONS",
    "ARCHITECTURE_KNOBS",
    "NORMS",
    "NORM_POSITIONS",
    "PowerNorm",
    "POSITIONAL_ENCODINGS",
    "DecoderOnly",
    "Embedder",
    "EncoderDecoder",
    "EncoderOnly",
    "FeedForward",
    "KeyValueCache",
    "LayerCache",
    "MultiHeadAttention",
    "TransformerConfig",
    "TransformerLayer",
    "TransformerStack",
    "count_parameters",
    "final_state_pooling",
    "first_token_pooling",
    "mean_pooling",
    "padding_mask",
]
