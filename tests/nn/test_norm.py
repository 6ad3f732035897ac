"""Normalisation layers, BatchNorm for padded sequences in particular."""

import pytest
import torch

from zoo.nn import NORMS
from zoo.nn.norm import MaskedBatchNorm
from zoo.nn.powernorm import PowerNorm


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
    # the running statistics of each length in the batch (3, 5 and 1 real tokens: rows 2, 4, 0), seen for the
    # first time, took the statistics of the real tokens; other lengths are left alone
    tokens, rows = x[~mask], [0, 2, 4]
    torch.testing.assert_close(norm.running_mean[rows], tokens.mean(0).expand(3, 4))
    torch.testing.assert_close(norm.running_var[rows], tokens.var(0, unbiased=False).expand(3, 4))
    assert norm.seen.nonzero().squeeze(-1).tolist() == rows and not norm.running_mean[[1, 3]].any()
    norm(x, mask)  # seen lengths now move by the momentum
    torch.testing.assert_close(norm.running_mean[rows], tokens.mean(0).expand(3, 4))
    torch.testing.assert_close(norm.running_var[rows], tokens.var(0, unbiased=False).expand(3, 4))


def test_batchnorm_evaluates_each_sequence_with_the_statistics_of_its_length():
    """Length-bucketed batches make training statistics depend on the length; evaluation uses those of each
    sequence's length (or the nearest one seen), so a sequence's output does not depend on its batch."""
    norm = MaskedBatchNorm(2, max_len=8).double().eval()
    norm.running_mean[1], norm.running_mean[5] = torch.tensor([1.0, 1.0]), torch.tensor([3.0, 3.0])
    norm.running_var.fill_(4.0)
    norm.seen[[1, 5]] = True
    x = torch.full((2, 5, 2), 5.0, dtype=torch.float64)
    mask = torch.tensor([[False, False, True, True, True], [False] * 5])  # lengths 2 and 5: rows 1 and 4
    out = norm(x, mask)
    scale = (4.0 + 1e-5) ** -0.5
    torch.testing.assert_close(out[0, :2], torch.full((2, 2), 4.0 * scale, dtype=torch.float64))  # row 1
    torch.testing.assert_close(out[1], torch.full((5, 2), 2.0 * scale, dtype=torch.float64))  # nearest seen: 5
    torch.testing.assert_close(norm(x[1:], mask[1:]), out[1:])  # alone or batched, the same


def test_batchnorm_checkpoints_with_one_set_of_running_statistics_still_load():
    old = {"weight": torch.ones(2), "bias": torch.zeros(2), "running_mean": torch.tensor([1.0, 2.0])}
    old["running_var"] = torch.tensor([3.0, 4.0])
    norm = MaskedBatchNorm(2, max_len=4)
    norm.load_state_dict(old)
    assert torch.equal(norm.running_mean, torch.tensor([[1.0, 2.0]] * 4)) and norm.seen.all()


def test_batchnorm_eval_uses_running_statistics_at_batch_size_one():
    norm = MaskedBatchNorm(3).double()
    norm.running_mean.fill_(2.0)
    norm.running_var.fill_(4.0)
    norm.eval()
    x = torch.full((1, 1, 3), 4.0, dtype=torch.float64)
    torch.testing.assert_close(norm(x), torch.full((1, 1, 3), 2.0 / (4.0 + 1e-5) ** 0.5, dtype=torch.float64))


def naive_prefix_statistics(x, mask, t):
    """Mean and variance over the real tokens at positions <= t of every sequence, in float64."""
    tokens = x[:, : t + 1][~mask[:, : t + 1]]
    return tokens.mean(0), tokens.var(0, unbiased=False)


def test_causal_batchnorm_normalises_each_position_with_its_causal_prefix():
    torch.manual_seed(0)
    norm = MaskedBatchNorm(3, causal=True, max_len=8).double().train()
    x = torch.randn(2, 4, 3, dtype=torch.float64) * 5 + 3
    mask = torch.zeros(2, 4, dtype=torch.bool)
    mask[1, 2:] = True
    out = norm(x, mask)
    for t in range(4):
        mean, var = naive_prefix_statistics(x, mask, t)
        torch.testing.assert_close(out[:, t], (x[:, t] - mean) / (var + 1e-5) ** 0.5)
        # each position's running statistics follow its own prefix statistics; unseen positions stay put
        torch.testing.assert_close(norm.running_mean[t], 0.1 * mean)
        torch.testing.assert_close(norm.running_var[t], 0.9 + 0.1 * var)
    assert torch.equal(norm.running_mean[4:], torch.zeros(4, 3, dtype=torch.float64))


def test_causal_batchnorm_prefix_statistics_are_accurate_far_from_zero():
    x = (torch.randn(4, 6, 2) + 3e3).double()  # float32 values, and float32 arithmetic below
    out = MaskedBatchNorm(2, causal=True).train()(x.float()).double()
    for t in range(6):
        mean, var = naive_prefix_statistics(x, torch.zeros(4, 6, dtype=torch.bool), t)
        torch.testing.assert_close(out[:, t], (x[:, t] - mean) / (var + 1e-5) ** 0.5, atol=1e-3, rtol=0)


def test_causal_batchnorm_evaluates_each_position_with_its_running_statistics():
    norm = MaskedBatchNorm(2, causal=True, max_len=3).double().eval()
    norm.running_mean.copy_(torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]))
    norm.running_var.fill_(4.0)
    x = torch.full((1, 5, 2), 5.0, dtype=torch.float64)
    expected = (x - torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0], [3.0, 4.0], [3.0, 4.0]])) / (4.0 + 1e-5) ** 0.5
    torch.testing.assert_close(norm(x), expected)  # positions past max_len take the last one's
    torch.testing.assert_close(norm(x[:, 3:], offset=3), expected[:, 3:])  # decoding with a cache
    torch.testing.assert_close(norm(x[:, 1:2], offset=1), expected[:, 1:2])


def backward_through(norm):
    """Backpropagate a random upstream gradient through ``norm`` (running second moment 2.0, weight 1) and
    return ``(x, upstream, z, scale)`` with ``z = x * scale`` the normalised input."""
    x = torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(2, 4, 3, dtype=torch.float64)
    (norm(x) * upstream).sum().backward()
    scale = (2.0 + 1e-5) ** -0.5
    return x, upstream, x.detach() * scale, scale


@pytest.mark.parametrize("causal", [False, True], ids=["encoder", "causal"])
def test_batchnorm_gradient_flows_through_the_statistics(causal):
    norm = MaskedBatchNorm(2, causal=causal).double().train()
    x = torch.randn(3, 4, 2, dtype=torch.float64, requires_grad=True)
    out = norm(x)
    # normalised outputs sum to zero per feature over the statistics' tokens, whatever x is: over the batch,
    # or (causal) over the first position's tokens
    (out.sum() if not causal else out[:, 0].sum()).backward()
    torch.testing.assert_close(x.grad, torch.zeros_like(x), atol=1e-10, rtol=0)


def test_powernorm_forward_uses_the_running_quadratic_mean_then_updates_it():
    norm = PowerNorm(3).double().train()
    norm.running_phi.fill_(4.0)
    x = torch.randn(2, 5, 3, dtype=torch.float64)
    mask = torch.zeros(2, 5, dtype=torch.bool)
    mask[0, 3:] = True
    out = norm(x, mask)
    torch.testing.assert_close(out, x / (4.0 + 1e-5) ** 0.5)
    quadratic_mean = (x[~mask] ** 2).mean(0)
    torch.testing.assert_close(norm.running_phi, 0.9 * 4.0 + 0.1 * quadratic_mean)
    norm.eval()
    torch.testing.assert_close(norm(x), x / (norm.running_phi + 1e-5) ** 0.5)


def test_powernorm_backward_is_algorithm_1_of_shen_et_al():
    torch.manual_seed(0)
    norm = PowerNorm(3).double().train()
    norm.running_phi.fill_(2.0)
    norm.running_nu.fill_(0.3)
    x, upstream, z, scale = backward_through(norm)
    torch.testing.assert_close(x.grad, (upstream - 0.3 * z) * scale)  # weight is 1: dL/dz = upstream
    gamma, lam = (z * z).mean((0, 1)), (upstream * z).mean((0, 1))
    torch.testing.assert_close(norm.running_nu, 0.3 * (1 - 0.1 * gamma) + 0.1 * lam)


@pytest.mark.parametrize("causal", [False, True], ids=["encoder", "causal"])
def test_batchnorm_with_all_padding_keeps_running_statistics(causal):
    norm = MaskedBatchNorm(2, causal=causal, max_len=3).train()
    before = norm.running_mean.clone()
    out = norm(torch.randn(1, 3, 2), torch.ones(1, 3, dtype=torch.bool))
    assert torch.isfinite(out).all() and torch.equal(norm.running_mean, before)


@pytest.mark.parametrize("name", NORMS.names())
def test_every_norm_keeps_shape(name):
    norm = NORMS.build(name, 6)
    assert norm(torch.randn(2, 3, 6), torch.zeros(2, 3, dtype=torch.bool)).shape == (2, 3, 6)


def test_causal_batchnorm_leaves_positions_of_padding_only_alone():
    """Positions 3 and 4 are padding in every sequence: their prefix statistics are position 2's, and they
    moved those positions' running statistics towards it."""
    torch.manual_seed(0)
    norm = MaskedBatchNorm(3, causal=True, max_len=8).double().train()
    norm.running_mean.uniform_(-1, 1)
    norm.running_var.uniform_(0.5, 2)
    before = norm.running_mean.clone(), norm.running_var.clone()
    x = torch.randn(2, 5, 3, dtype=torch.float64) * 5 + 3
    mask = torch.zeros(2, 5, dtype=torch.bool)
    mask[0, 3:], mask[1, 2:] = True, True  # position 2 is real in one sequence only
    norm(x, mask)
    for t in range(3):
        mean, var = naive_prefix_statistics(x, mask, t)
        torch.testing.assert_close(norm.running_mean[t], 0.9 * before[0][t] + 0.1 * mean)
        torch.testing.assert_close(norm.running_var[t], 0.9 * before[1][t] + 0.1 * var)
    assert torch.equal(norm.running_mean[3:], before[0][3:]) and torch.equal(norm.running_var[3:], before[1][3:])


def test_batchnorm_a_sequence_of_padding_only_moves_no_length():
    norm = MaskedBatchNorm(2, max_len=4).double().train()
    x = torch.randn(2, 3, 2, dtype=torch.float64)
    mask = torch.zeros(2, 3, dtype=torch.bool)
    mask[1] = True  # the second sequence is padding only; the first has length 3
    norm(x, mask)
    assert norm.seen.tolist() == [False, False, True, False]
    assert not norm.running_mean[0].any() and torch.equal(norm.running_var[0], torch.ones(2, dtype=torch.float64))
