"""Normalisation layers, BatchNorm for padded sequences in particular."""

import pytest
import torch

from zoo.nn import NORMS
from zoo.nn.norm import MaskedBatchNorm


def test_batchnorm_statistics_cover_real_tokens_only():
    torch.manual_seed(0)
    norm = MaskedBatchNorm(4).double().train()
    x = torch.randn(3, 5, 4, dtype=torch.float64)
    mask = torch.zeros(3, 5, dtype=torch.bool)
    mask[0, 3:], mask[2, 1:] = True, True
    out = norm(x, mask)
    real = out[~mask]
    torch.testing.assert_close(real.mean(0), torch.zeros(4, dtype=torch.float64), atol=1e-12, rtol=0)
    torch.testing.assert_close(real.var(0, unbiased=False), torch.ones(4, dtype=torch.float64), atol=1e-4, rtol=0)
    # the running statistics moved towards the statistics of the real tokens
    tokens = x[~mask]
    torch.testing.assert_close(norm.running_mean, 0.1 * tokens.mean(0))
    torch.testing.assert_close(norm.running_var, 0.9 + 0.1 * tokens.var(0, unbiased=False))


def test_batchnorm_eval_uses_running_statistics_at_batch_size_one():
    norm = MaskedBatchNorm(3).double()
    norm.running_mean.fill_(2.0)
    norm.running_var.fill_(4.0)
    norm.eval()
    x = torch.full((1, 1, 3), 4.0, dtype=torch.float64)
    torch.testing.assert_close(norm(x), torch.full((1, 1, 3), 2.0 / (4.0 + 1e-5) ** 0.5, dtype=torch.float64))


def test_causal_batchnorm_does_not_use_batch_statistics_in_training():
    norm = MaskedBatchNorm(3, causal=True).double().train()
    x = torch.randn(2, 4, 3, dtype=torch.float64) * 5 + 3
    out = norm(x)
    # normalised by the running statistics before this batch (mean 0, var 1), then updated from it
    torch.testing.assert_close(out, x / (1 + 1e-5) ** 0.5)
    assert not torch.equal(norm.running_mean, torch.zeros(3, dtype=torch.float64))


def test_batchnorm_with_all_padding_keeps_running_statistics():
    norm = MaskedBatchNorm(2).train()
    out = norm(torch.randn(1, 3, 2), torch.ones(1, 3, dtype=torch.bool))
    assert torch.isfinite(out).all() and torch.equal(norm.running_mean, torch.zeros(2))


@pytest.mark.parametrize("name", NORMS.names())
def test_every_norm_keeps_shape(name):
    norm = NORMS.build(name, 6)
    assert norm(torch.randn(2, 3, 6), torch.zeros(2, 3, dtype=torch.bool)).shape == (2, 3, 6)
