"""Tiny random models and a scripted step for the decoding tests."""

import math

import pytest
import torch

from tests.nn.conftest import tiny_config
from zoo.nn import DecoderOnly, EncoderDecoder

VOCAB, BOS, EOS, PAD = 23, 1, 2, 0


def encoder_decoder(pe: str = "sinusoidal", seed: int = 0, eos: float = 0.08) -> EncoderDecoder:
    """A random two-layer encoder-decoder in float64, eval mode, whose <eos> is likely enough (``eos``) to end
    some hypotheses early and leave others to run to their limit."""
    torch.manual_seed(seed)
    model = EncoderDecoder(tiny_config(pe=pe, norm_position="pre"), VOCAB, VOCAB, 2, 2).double().eval()
    with torch.no_grad():  # a constant part of the last hidden state that points at <eos>
        direction = torch.randn(model.config.d_model, dtype=torch.float64)
        model.decoder.final_norm.bias += direction
        model.output.linear.weight[EOS] = eos * direction
    return model


def language_model(pe: str = "sinusoidal", max_len: int = 64) -> DecoderOnly:
    torch.manual_seed(0)
    return DecoderOnly(tiny_config(pe=pe, max_len=max_len, norm_position="pre"), VOCAB, 2).double().eval()


def sources() -> tuple[torch.Tensor, torch.Tensor]:
    """Four right-padded sources of lengths 7, 3, 5, 1 (each ending in <eos>)."""
    torch.manual_seed(1)
    lengths = [7, 3, 5, 1]
    src = torch.full((4, 7), PAD)
    for row, length in enumerate(lengths):
        src[row, : length - 1] = torch.randint(4, VOCAB, (length - 1,))
        src[row, length - 1] = EOS
    return src, src == PAD


class ScriptedStep:
    """A step whose next-token distribution depends only on the position: after ``<bos>`` ``<eos>`` 0.55 and
    token 3 0.45; then token 3 with 0.999 until position ``long``, where ``<eos>`` gets 0.999."""

    def __init__(self, rows: int, long: int = 9, vocab: int = 5) -> None:
        self.rows, self.long, self.vocab, self.position = rows, long, vocab, 0

    def _row(self) -> list[float]:
        probs = [1e-9] * self.vocab
        if self.position == 0:
            probs[EOS], probs[3] = 0.55, 0.45
        elif self.position < self.long:
            probs[3], probs[EOS] = 0.999, 0.001
        else:
            probs[EOS], probs[3] = 0.999, 0.001
        return [math.log(p) for p in probs]

    def __call__(self, tokens):
        row = torch.tensor(self._row(), dtype=torch.float64)
        self.position += 1
        return row.expand(self.rows, -1)

    def reorder(self, index):
        pass


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
