"""Every knob value in all three architectures builds, trains (loss decreases) and has finite gradients."""

import itertools

import pytest
import torch
import torch.nn.functional as F

from tests.nn.conftest import ARCHITECTURES, VOCAB, all_pairs, build, run, tiny_config
from zoo.nn import ACTIVATIONS, NORM_POSITIONS, NORMS, POSITIONAL_ENCODINGS, EncoderOnly

# Every value of each knob in each architecture, and every pair of values of any two knobs (an encoding with a norm,
# a norm with a norm position, a head count with an encoding, an activation with a norm, ...) in one case at least:
# each knob acts in its own place of a layer, so the whole product (336 cases, and 120 more for the activations)
# ran the same lines many times over for a minute of the suite. Below it, every activation with every norm and norm
# position together, the architectures taking turns along it.
GRID = all_pairs(ARCHITECTURES, POSITIONAL_ENCODINGS.names(), NORMS.names(), NORM_POSITIONS, [1, 4],
                 ACTIVATIONS.names())  # fmt: skip
ACTIVATION_GRID = [
    (ARCHITECTURES[index % len(ARCHITECTURES)], *case)
    for index, case in enumerate(itertools.product(NORMS.names(), NORM_POSITIONS, ACTIVATIONS.names()))
]


def loss_of(model, tokens, labels):
    out = run(model, tokens)
    if isinstance(model, EncoderOnly):
        out = out.mean(dim=1)[:, :2]  # a two-class readout of the pooled hidden state
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), labels.reshape(-1))


def assert_trains(model, architecture: str) -> None:
    """20 Adam steps on one fixed batch: every gradient finite, and the loss down by at least 10%."""
    tokens = torch.randint(1, VOCAB, (8, 8))
    labels = tokens[:, 1].remainder(2) if architecture == "encoder_only" else tokens.roll(-1, dims=1)
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


@pytest.mark.parametrize(("architecture", "pe", "norm", "norm_position", "n_heads", "activation"), GRID)
def test_trains_on_a_fixed_batch(architecture, pe, norm, norm_position, n_heads, activation):
    torch.manual_seed(0)
    config = tiny_config(pe=pe, norm=norm, norm_position=norm_position, activation=activation, n_heads=n_heads)
    assert_trains(build(architecture, config, layers=1).train(), architecture)


@pytest.mark.parametrize(("architecture", "norm", "norm_position", "activation"), ACTIVATION_GRID)
def test_every_activation_trains_with_every_norm(architecture, norm, norm_position, activation):
    torch.manual_seed(0)
    config = tiny_config(norm=norm, norm_position=norm_position, activation=activation)
    assert_trains(build(architecture, config, layers=1).train(), architecture)


def test_the_grids_meet_every_pair_of_values():
    factors = [ARCHITECTURES, POSITIONAL_ENCODINGS.names(), NORMS.names(), NORM_POSITIONS, [1, 4], ACTIVATIONS.names()]
    for i, j in itertools.combinations(range(len(factors)), 2):
        assert {(case[i], case[j]) for case in GRID} == set(itertools.product(factors[i], factors[j]))
    assert {case[1:] for case in ACTIVATION_GRID} == set(itertools.product(*factors[2:4], factors[5]))
    assert {(case[0], case[-1]) for case in ACTIVATION_GRID} == set(itertools.product(factors[0], factors[5]))


@pytest.mark.parametrize("norm", NORMS.names())
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_without_biases_trains_and_has_no_bias_or_shift(architecture, norm):
    """``model.bias=false`` (nanoGPT's and PaLM's layout) with every norm: no bias in any projection, no shift
    in any norm, and it still trains."""
    torch.manual_seed(0)
    model = build(architecture, tiny_config(norm=norm, norm_position="pre", bias=False), layers=1).train()
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert linears and all(m.bias is None for m in linears)
    assert not [name for name, _ in model.named_parameters() if name.endswith(".bias")]
    assert_trains(model, architecture)
