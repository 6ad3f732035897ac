"""Causality and padding invariance, for every norm and positional encoding, in train and eval mode."""

import copy

import pytest
import torch

from tests.nn.conftest import ARCHITECTURES, VOCAB, build, run, tiny_config
from zoo.nn import NORM_POSITIONS, NORMS, POSITIONAL_ENCODINGS

PAD = 0


def fresh_runs(model, *calls):
    """Run each call on its own copy of ``model``, so that running statistics updated in training mode
    by one call do not reach the next."""
    return [fn(copy.deepcopy(model)) for fn in calls]


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("norm_position", NORM_POSITIONS)
@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
@pytest.mark.parametrize("norm", NORMS.names())
@pytest.mark.parametrize("architecture", ["encoder_decoder", "decoder_only"])
def test_future_tokens_do_not_change_the_past(architecture, norm, pe, norm_position, train):
    model = build(architecture, tiny_config(norm=norm, pe=pe, norm_position=norm_position)).double()
    model.train(train)
    tokens = torch.randint(1, VOCAB, (3, 10))
    t = 5
    changed = tokens.clone()
    changed[:, t + 1 :] = torch.randint(1, VOCAB, (3, 10 - t - 1))
    before, after = fresh_runs(model, lambda m: run(m, tokens), lambda m: run(m, changed))
    torch.testing.assert_close(before[:, : t + 1], after[:, : t + 1], atol=1e-10, rtol=0)
    assert not torch.allclose(before[:, t + 1 :], after[:, t + 1 :])


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
@pytest.mark.parametrize("norm", NORMS.names())
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_outputs_ignore_extra_padding_and_pad_values(architecture, norm, pe, train):
    model = build(architecture, tiny_config(norm=norm, pe=pe, norm_position="pre")).double()
    model.train(train)
    tokens = torch.randint(1, VOCAB, (3, 8))
    mask = torch.zeros(3, 8, dtype=torch.bool)
    mask[1, 5:], mask[2, 3:] = True, True
    tokens[mask] = PAD
    longer = torch.cat([tokens, torch.full((3, 4), PAD)], dim=1)
    longer_mask = torch.cat([mask, torch.ones(3, 4, dtype=torch.bool)], dim=1)
    garbage = tokens.clone()
    garbage[mask] = torch.randint(1, VOCAB, (int(mask.sum()),))
    src = torch.randint(1, VOCAB, (3, 6))
    src_mask = torch.zeros(3, 6, dtype=torch.bool)
    src_mask[0, 4:] = True
    longer_src = torch.cat([src, torch.full((3, 2), PAD)], dim=1)
    longer_src_mask = torch.cat([src_mask, torch.ones(3, 2, dtype=torch.bool)], dim=1)
    base, padded, dirty = fresh_runs(
        model,
        lambda m: run(m, tokens, mask, src, src_mask),
        lambda m: run(m, longer, longer_mask, longer_src, longer_src_mask),
        lambda m: run(m, garbage, mask, src, src_mask),
    )
    real = ~mask
    torch.testing.assert_close(padded[:, :8][real], base[real], atol=1e-10, rtol=0)
    torch.testing.assert_close(dirty[real], base[real], atol=1e-10, rtol=0)
