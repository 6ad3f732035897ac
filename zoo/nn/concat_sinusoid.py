"""Sinusoids laid out as all sines, then all cosines (``model.pe=sinusoidal_concat``): Marian's layout
(Junczys-Dowmunt et al. 2018; Hugging Face's ``MarianSinusoidalPositionalEmbedding``), which its checkpoints
(Helsinki-NLP's opus-mt) were trained with."""

from __future__ import annotations

from functools import partial

import torch
from torch import Tensor

from zoo.nn.positional import PositionalEncoding, PositionTable, sinusoid_table
from zoo.registry import POSITIONAL_ENCODINGS


def concat_sinusoid_table(length: int, d_model: int, device: torch.device | None = None) -> Tensor:
    """``(T, D)`` float64: PE(pos, i) = sin(pos / 10000^(2i / D)) for ``i < ceil(D / 2)``, and
    PE(pos, ceil(D / 2) + i) = cos(pos / 10000^(2i / D)): the angles of Vaswani et al. 2017, section 3.5, with
    the sines in the first half and the cosines in the second instead of interleaved."""
    table = sinusoid_table(length, d_model, dtype=torch.float64, device=device)
    return torch.cat([table[:, 0::2], table[:, 1::2]], dim=1)


@POSITIONAL_ENCODINGS.register("sinusoidal_concat", synonyms=("marian", "concat_sinusoidal", "sinusoidal_halves"))
class ConcatSinusoidalPositionalEncoding(PositionalEncoding):
    """Fixed sinusoids added to the embeddings, sines then cosines (:func:`concat_sinusoid_table`); any length
    works. The same information as ``sinusoidal``, its channels in another order."""

    def __init__(self, d_model: int, n_heads: int, max_len: int, causal: bool = False) -> None:
        super().__init__(d_model, n_heads, max_len, causal)
        self._table = PositionTable(partial(concat_sinusoid_table, d_model=d_model))

    def forward(self, x: Tensor, start: int = 0) -> Tensor:
        return x + self._table.rows(start, x.shape[1], x.device, x.dtype)
