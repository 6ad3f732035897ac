"""Pure-PyTorch Transformer components (no Lightning here): attention, positional encodings, norms,
feed-forward networks, layers and the three backbones."""

from zoo.nn.attention import KeyValueCache, MultiHeadAttention
from zoo.nn.config import NORM_POSITIONS, TransformerConfig
from zoo.nn.embedding import Embedder
from zoo.nn.feedforward import ACTIVATIONS, FeedForward
from zoo.nn.layers import LayerCache, TransformerLayer, TransformerStack
from zoo.nn.masks import padding_mask
from zoo.nn.norm import NORMS
from zoo.nn.positional import POSITIONAL_ENCODINGS
from zoo.nn.powernorm import PowerNorm
from zoo.nn.transformer import DecoderOnly, EncoderDecoder, EncoderOnly, count_parameters

__all__ = [
    "ACTIVATIONS",
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
    "padding_mask",
]
