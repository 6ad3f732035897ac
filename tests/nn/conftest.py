"""Helpers to build and run each architecture the same way in the tests."""

import itertools

import pytest
import torch

from zoo.nn import DecoderOnly, EncoderDecoder, EncoderOnly, TransformerConfig

ARCHITECTURES = ["encoder_decoder", "encoder_only", "decoder_only"]
VOCAB = 23


def all_pairs(*factors: list) -> list[tuple]:
    """Cases (one value of each factor) in which every pair of values of any two factors meets at least once: a
    greedy covering (each case the one of the whole product that meets the most pairs not met yet), far fewer
    cases than the product where each factor acts in its own place. Deterministic (the product's order)."""
    pairs = lambda case: {(i, case[i], j, case[j]) for i, j in itertools.combinations(range(len(case)), 2)}  # noqa: E731
    product = list(itertools.product(*factors))
    missing, cases = set().union(*map(pairs, product)), []
    while missing:
        best = max(product, key=lambda case: len(pairs(case) & missing))
        cases.append(best)
        missing -= pairs(best)
    return cases


def tiny_config(**overrides) -> TransformerConfig:
    knobs = dict(d_model=16, n_heads=2, d_ff=24, dropout=0.0, max_len=64)
    knobs.update(overrides)
    return TransformerConfig(**knobs)


def build(architecture: str, config: TransformerConfig, layers: int = 2):
    if architecture == "encoder_decoder":
        return EncoderDecoder(config, VOCAB, VOCAB, layers, layers)
    if architecture == "encoder_only":
        return EncoderOnly(config, VOCAB, layers)
    return DecoderOnly(config, VOCAB, layers)


def run(model, tokens, mask=None, src=None, src_mask=None):
    """Outputs at every position of ``tokens`` (the target for an encoder-decoder)."""
    if isinstance(model, EncoderDecoder):
        if src is None:
            src = torch.arange(1, 9).repeat(tokens.shape[0], 1) % (VOCAB - 1) + 1
        return model(src, tokens, src_mask, mask)
    return model(tokens, mask)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
