"""Bad knob values fail at construction with a message naming the field, the value and the valid ones."""

import pytest

from zoo.nn import ACTIVATIONS, NORMS, POSITIONAL_ENCODINGS, DecoderOnly, EncoderDecoder, TransformerConfig


@pytest.mark.parametrize(
    ("field", "registry"),
    [("pe", POSITIONAL_ENCODINGS), ("norm", NORMS), ("activation", ACTIVATIONS)],
)
def test_unknown_component_lists_valid_names(field, registry):
    with pytest.raises(ValueError) as error:
        TransformerConfig(**{field: "bogus"})
    message = str(error.value)
    assert message.startswith(f"model.{field}='bogus' is not valid; choose one of: ")
    assert all(repr(name) in message for name in registry.names())


def test_unknown_norm_position():
    with pytest.raises(ValueError, match=r"model.norm_position='middle' is not valid; choose one of: 'post', 'pre'"):
        TransformerConfig(norm_position="middle")


def test_d_model_not_divisible_by_n_heads():
    with pytest.raises(ValueError, match=r"model.d_model=100 is not divisible by model.n_heads=8"):
        TransformerConfig(d_model=100, n_heads=8)


@pytest.mark.parametrize(("field", "value"), [("d_model", 0), ("d_ff", -1), ("n_heads", 0), ("max_len", 0)])
def test_non_positive_sizes(field, value):
    with pytest.raises(ValueError, match=rf"model.{field}={value} is not valid; it must be a positive integer"):
        TransformerConfig(**{field: value})


@pytest.mark.parametrize("field", ["dropout", "activation_dropout", "attention_dropout"])
def test_dropout_out_of_range(field):
    with pytest.raises(ValueError, match=rf"model.{field}=1.5 is not valid; it must be in \[0, 1\)"):
        TransformerConfig(**{field: 1.5})


@pytest.mark.parametrize(("activation_dropout", "expected"), [(None, 0.3), (0.0, 0.0), (0.2, 0.2)])
def test_the_ffn_hidden_dropout_is_activation_dropout_or_else_dropout(activation_dropout, expected):
    config = TransformerConfig(d_model=8, n_heads=2, d_ff=16, dropout=0.3, activation_dropout=activation_dropout)
    layer = DecoderOnly(config, 10, 1).decoder.layers[0]
    assert layer.ffn.dropout.p == expected and layer.dropout.p == 0.3 and layer.self_attn.dropout == 0.3


@pytest.mark.parametrize(("attention_dropout", "expected"), [(None, 0.3), (0.0, 0.0), (0.2, 0.2)])
def test_the_attention_weights_dropout_is_attention_dropout_or_else_dropout(attention_dropout, expected):
    config = TransformerConfig(d_model=8, n_heads=2, d_ff=16, dropout=0.3, attention_dropout=attention_dropout)
    layer = EncoderDecoder(config, 10, 10, 1, 1).decoder.layers[0]
    assert layer.self_attn.dropout == layer.cross_attn.dropout == expected
    assert layer.dropout.p == layer.ffn.dropout.p == 0.3


def test_odd_d_model_with_sinusoidal_is_supported():
    model = DecoderOnly(TransformerConfig(d_model=15, n_heads=3, d_ff=8, pe="sinusoidal"), 10, 1)
    import torch

    assert model(torch.randint(1, 10, (1, 4))).shape == (1, 4, 10)
