"""Every knob value in all three architectures builds, trains (loss decreases) and has finite gradients."""

import itertools

import pytest
import torch
import torch.nn.functional as F

from tests.nn.conftest import ARCHITECTURES, VOCAB, build, run, tiny_config
from zoo.nn import ACTIVATIONS, NORM_POSITIONS, NORMS, POSITIONAL_ENCODINGS, EncoderOnly

GRID = list(
    itertools.product(
        ARCHITECTURES, POSITIONAL_ENCODINGS.names(), NORMS.names(), NORM_POSITIONS, ACTIVATIONS.names(), [1, 4]
    )
)


def loss_of(model, tokens, labels):
    out = run(model, tokens)
    if isinstance(model, EncoderOnly):
        out = out.mean(dim=1)[:, :2]  # a two-class readout of the pooled hidden state
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), labels.reshape(-1))


@pytest.mark.parametrize(("architecture", "pe", "norm", "norm_position", "activation", "n_heads"), GRID)
def test_trains_on_a_fixed_batch(architecture, pe, norm, norm_position, activation, n_heads):
    torch.manual_seed(0)
    config = tiny_config(pe=pe, norm=norm, norm_position=norm_position, activation=activation, n_heads=n_heads)
    model = build(architecture, config, layers=1).train()
    tokens = torch.randint(1, VOCAB, (8, 8))
    labels = tokens[:, 1:2].remainder(2) if architecture == "encoder_only" else tokens.roll(-1, dims=1)
    labels = labels.squeeze(1) if architecture == "encoder_only" else labels
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = loss_of(model, tokens, labels)
        loss.backward()
        assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.9 * losses[0], losses
