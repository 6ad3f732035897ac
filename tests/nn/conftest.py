"""Helpers to build and run each architecture the same way in the tests."""

import pytest
import torch

from zoo.nn import DecoderOnly, EncoderDecoder, EncoderOnly, TransformerConfig

ARCHITECTURES = ["encoder_decoder", "encoder_only", "decoder_only"]
VOCAB = 23


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
