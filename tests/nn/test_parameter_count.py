"""Parameter counts equal a closed-form formula per architecture."""

import pytest

from tests.nn.conftest import tiny_config
from zoo.nn import ACTIVATIONS, DecoderOnly, EncoderDecoder, EncoderOnly, count_parameters


def norm_params(c) -> int:
    # RMSNorm has a gain only; the others a gain and, unless model.bias is false, a shift
    return c.d_model if c.norm == "rmsnorm" or not c.bias else 2 * c.d_model


def layer_params(c, cross: bool) -> int:
    d, gate, b = c.d_model, ACTIVATIONS.get(c.activation).gate_factor, int(c.bias)
    attention = 4 * (d * d + b * d)
    ffn = d * gate * c.d_ff + b * gate * c.d_ff + c.d_ff * d + b * d
    return attention * (2 if cross else 1) + ffn + norm_params(c) * (3 if cross else 2)


def stack_params(c, layers: int, cross: bool) -> int:
    return layers * layer_params(c, cross) + (norm_params(c) if c.norm_position == "pre" else 0)


def embed_params(c, vocab: int) -> int:
    return vocab * c.d_model + (c.max_len * c.d_model if c.pe == "learned" else 0)


KNOBS = [
    dict(),
    dict(pe="learned", norm="rmsnorm", norm_position="pre", activation="swiglu"),
    dict(pe="rope", norm="batchnorm", activation="gelu", n_heads=4),
    dict(pe="learned", norm="layernorm", norm_position="pre", activation="gelu", bias=False),  # nanoGPT's layout
    dict(norm="powernorm", activation="swiglu", bias=False),
    dict(norm="rmsnorm", norm_position="pre", bias=False),
]


@pytest.mark.parametrize("tie", [True, False])
@pytest.mark.parametrize("knobs", KNOBS)
def test_encoder_decoder_count(knobs, tie):
    c = tiny_config(**knobs)
    model = EncoderDecoder(c, 31, 29, 2, 3, tie_embeddings=tie)
    expected = (
        embed_params(c, 31)
        + embed_params(c, 29)
        + stack_params(c, 2, False)
        + stack_params(c, 3, True)
        + (0 if tie else 29 * c.d_model)
    )
    assert count_parameters(model) == expected


def test_shared_source_and_target_embeddings_count_once():
    c = tiny_config()
    model = EncoderDecoder(c, 31, 31, 1, 1, share_embeddings=True)
    assert count_parameters(model) == embed_params(c, 31) + stack_params(c, 1, False) + stack_params(c, 1, True)


@pytest.mark.parametrize("knobs", KNOBS)
def test_encoder_only_count(knobs):
    c = tiny_config(**knobs)
    assert count_parameters(EncoderOnly(c, 31, 3)) == embed_params(c, 31) + stack_params(c, 3, False)


@pytest.mark.parametrize("tie", [True, False])
@pytest.mark.parametrize("knobs", KNOBS)
def test_decoder_only_count(knobs, tie):
    c = tiny_config(**knobs)
    expected = embed_params(c, 31) + stack_params(c, 2, False) + (0 if tie else 31 * c.d_model)
    assert count_parameters(DecoderOnly(c, 31, 2, tie_embeddings=tie)) == expected


def test_paper_base_model_size():
    """Vaswani et al. 2017, Table 3: the base model has 65M parameters (37k shared BPE vocabulary)."""
    from zoo.nn import TransformerConfig

    model = EncoderDecoder(TransformerConfig(), 37000, 37000, 6, 6, share_embeddings=True)
    assert 60e6 < count_parameters(model) < 65e6
