"""Positional encodings: the paper's formula, relative-position properties, and length limits."""

import math

import pytest
import torch

from zoo.nn import POSITIONAL_ENCODINGS
from zoo.nn.positional import Rotation, sinusoid_table


@pytest.mark.parametrize(("pos", "i"), [(0, 0), (1, 0), (7, 3), (50, 15), (123, 31)])
def test_sinusoidal_values_match_the_formula(pos, i):
    d_model = 64
    table = sinusoid_table(200, d_model)
    angle = pos / 10000 ** (2 * i / d_model)
    assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
    assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_sinusoidal_dot_product_depends_on_offset_only():
    table = sinusoid_table(300, 32).double()
    for k in (1, 5, 40):
        dots = (table[:-k] * table[k:]).sum(-1)
        torch.testing.assert_close(dots, dots[0].expand_as(dots), atol=1e-5, rtol=0)


def test_sinusoidal_supports_odd_d_model_and_any_length():
    pe = POSITIONAL_ENCODINGS.build("sinusoidal", 7, 1, 4)
    out = pe(torch.zeros(2, 5000, 7))
    torch.testing.assert_close(out[0], sinusoid_table(5000, 7))
    torch.testing.assert_close(out[0, 3, :6:2], torch.sin(3 / 10000 ** (torch.arange(0, 6, 2) / 7)))


def test_offset_positions_continue_the_table():
    pe = POSITIONAL_ENCODINGS.build("sinusoidal", 8, 2, 16)
    x = torch.zeros(1, 10, 8)
    torch.testing.assert_close(pe(x[:, 4:], start=4), pe(x)[:, 4:])


def test_learned_raises_past_max_len_naming_the_field():
    pe = POSITIONAL_ENCODINGS.build("learned", 8, 2, 16)
    assert pe(torch.zeros(1, 16, 8)).shape == (1, 16, 8)
    with pytest.raises(ValueError, match=r"17 tokens is longer than model.max_len=16"):
        pe(torch.zeros(1, 17, 8))


def test_rope_scores_depend_on_relative_position_only():
    rotate = Rotation(8)
    q, k = torch.randn(8, dtype=torch.float64), torch.randn(8, dtype=torch.float64)

    def score(m, n):
        qm = rotate(q.view(1, 1, 1, 8), start=m)
        kn = rotate(k.view(1, 1, 1, 8), start=n)
        return (qm * kn).sum().item()

    assert score(3, 1) == pytest.approx(score(12, 10), abs=1e-9)
    assert score(100, 40) == pytest.approx(score(60, 0), abs=1e-9)
    # rotation preserves norms
    assert rotate(q.view(1, 1, 1, 8), start=9).norm().item() == pytest.approx(q.norm().item())


def test_rope_rejects_odd_head_width():
    with pytest.raises(ValueError, match=r"even head width.*d_model=12.*n_heads=4"):
        POSITIONAL_ENCODINGS.build("rope", 12, 4, 16)


def test_none_adds_nothing_and_rope_adds_nothing_to_embeddings():
    x = torch.randn(2, 3, 8)
    for name in ("none", "rope"):
        assert torch.equal(POSITIONAL_ENCODINGS.build(name, 8, 2, 16)(x), x)
