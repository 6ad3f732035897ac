"""The types of the model knobs a config may set: each a Literal of its registry's names, so that jsonargparse lists
the valid values."""

from __future__ import annotations

from typing import Literal

from zoo.nn import NORM_POSITIONS
from zoo.registry import ACTIVATIONS, ARCHITECTURES, NORMS, POSITIONAL_ENCODINGS, RNN_ATTENTIONS, RNN_CELLS, SCHEDULES

# The valid names of each string knob, as types: the CLI's parser checks them and --help lists them.
Activation = Literal[tuple(ACTIVATIONS.names())]


Norm = Literal[tuple(NORMS.names())]


NormPosition = Literal[tuple(NORM_POSITIONS)]


PositionalEncoding = Literal[tuple(POSITIONAL_ENCODINGS.names())]


Schedule = Literal[tuple(SCHEDULES.names())]


Architecture = Literal[tuple(ARCHITECTURES)]


RnnCell = Literal[tuple(RNN_CELLS.names())]


RnnAttention = Literal[tuple(RNN_ATTENTIONS.names())]
