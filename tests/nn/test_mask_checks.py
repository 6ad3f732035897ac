"""Every public ``zoo.nn`` entry point that takes a mask refuses one it cannot read, in one line naming the argument,
what was given and what is valid: a float additive mask (``torch.nn.MultiheadAttention``'s), a 0/1 integer mask
(Hugging Face's, 1 at real tokens), a mask of another shape, a non-bool ``is_causal``. A float mask ended in a torch
error; an integer one was read wrongly without a word (``~`` of an integer is never zero)."""

import pytest
import torch

from tests.nn.conftest import VOCAB, tiny_config
from zoo.nn import (
    DecoderOnly,
    EncoderDecoder,
    EncoderOnly,
    MultiHeadAttention,
    TransformerLayer,
    TransformerStack,
)
from zoo.registry import NORMS, POOLINGS

B, T, S, D = 2, 5, 7, 16
REAL = torch.zeros(B, T, dtype=torch.bool)  # a valid (B, T) mask: no padding
ADVICE = (
    "; zoo takes no additive or 0/1 masks: pass mask == float('-inf') for an additive one, mask.bool() for 1 at "
    "padding, ~mask.bool() for 1 at real tokens"
)


def _bad_masks(length: int) -> list[tuple[object, str]]:
    """Masks that are not a bool (B, length) tensor, each with what the message says was given."""
    return [
        (torch.zeros(B, length), f"a torch.float32 tensor of shape {(B, length)}{ADVICE}"),
        (torch.ones(B, length, dtype=torch.long), f"a torch.int64 tensor of shape {(B, length)}{ADVICE}"),
        (torch.zeros(B, length + 1, dtype=torch.bool), f"a torch.bool tensor of shape {(B, length + 1)}"),
        (torch.zeros(length, dtype=torch.bool), f"a torch.bool tensor of shape {(length,)}"),
    ]


def _message(name: str, length: int, got: str, dims: str = "(B, S)") -> str:
    return f"{name} must be a bool tensor of shape {dims} = {(B, length)}, True at padding; got {got}"


def _calls():
    """(id, call(mask), argument name, valid length, dims) for every entry point that takes a padding mask."""
    config = tiny_config(d_model=D)
    x, memory = torch.randn(B, T, D), torch.randn(B, S, D)
    tokens, src = torch.randint(4, VOCAB, (B, T)), torch.randint(4, VOCAB, (B, S))
    attention, layer = MultiHeadAttention(D, 2), TransformerLayer(config, is_causal=True, cross_attention=True)
    stack, pair = TransformerStack(config, 1), EncoderDecoder(config, VOCAB, VOCAB, 1, 1)
    encoder, decoder = EncoderOnly(config, VOCAB, 1), DecoderOnly(config, VOCAB, 1)
    past = "(B, past + T)"
    yield "attention self", lambda m: attention(x, None, m, True), "key_padding_mask", T, "(B, S)"
    yield "attention cross", lambda m: attention(x, memory, m), "key_padding_mask", S, "(B, S)"
    yield "layer", lambda m: layer(x, m, memory), "padding_mask", T, past
    yield "layer memory", lambda m: layer(x, REAL, memory, m), "memory_padding_mask", S, "(B, S)"
    yield "stack", lambda m: stack(x, m), "padding_mask", T, past
    yield "encoder-only", lambda m: encoder(tokens, m), "padding_mask", T, "(B, S)"
    yield "decoder-only", lambda m: decoder(tokens, m), "padding_mask", T, past
    yield "encode", lambda m: pair.encode(tokens, m), "src_padding_mask", T, "(B, S)"
    yield "decode", lambda m: pair.decode(tokens, memory, m), "tgt_padding_mask", T, past
    yield "decode memory", lambda m: pair.decode(tokens, memory, REAL, m), "memory_padding_mask", S, "(B, S)"
    yield "forward", lambda m: pair(src, tokens, None, m), "tgt_padding_mask", T, past
    for name in NORMS.names():
        norm = NORMS.build(name, D)
        yield f"norm {name}", lambda m, norm=norm: norm(x, m), "padding_mask", T, "(B, T)"
    for name in POOLINGS.names():
        pooling = POOLINGS.get(name)
        yield f"pooling {name}", lambda m, pooling=pooling: pooling(x, m), "padding_mask", T, "(B, S)"


CALLS = list(_calls())


@pytest.mark.parametrize(("call", "name", "length", "dims"), [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_a_mask_of_another_dtype_or_shape_is_refused_in_one_line(call, name, length, dims):
    for mask, got in _bad_masks(length):
        with pytest.raises(ValueError) as error:
            call(mask)
        assert str(error.value) == _message(name, length, got, dims)
    with pytest.raises(ValueError, match=rf"^{name} must be a bool tensor of shape .* or None; got a list$"):
        call([[False] * length] * B)


@pytest.mark.parametrize(("call", "length"), [(c[1], c[3]) for c in CALLS], ids=[c[0] for c in CALLS])
def test_a_bool_mask_and_none_are_taken(call, length):
    mask = torch.zeros(B, length, dtype=torch.bool)
    mask[1, -2:] = True
    assert torch.isfinite(call(mask)).all() and torch.isfinite(call(None)).all()


def test_the_mask_of_incremental_decoding_holds_the_cached_positions():
    model = DecoderOnly(tiny_config(d_model=D), VOCAB, 1).eval()
    cache = model.decoder.new_cache()
    model(torch.randint(4, VOCAB, (B, 3)), torch.zeros(B, 3, dtype=torch.bool), cache)
    model(torch.randint(4, VOCAB, (B, 1)), torch.zeros(B, 4, dtype=torch.bool), cache)  # past 3 + 1 new
    with pytest.raises(ValueError, match=r"^padding_mask must be a bool tensor of shape \(B, past \+ T\) = \(2, 5\)"):
        model(torch.randint(4, VOCAB, (B, 1)), torch.zeros(B, 1, dtype=torch.bool), cache)  # the new one only


@pytest.mark.parametrize("is_causal", [torch.ones(T, T, dtype=torch.bool), 1, None])
def test_is_causal_must_be_a_bool(is_causal):
    with pytest.raises(ValueError) as error:
        MultiHeadAttention(D, 2)(torch.randn(B, T, D), None, None, is_causal)
    assert str(error.value) == (
        f"is_causal must be True or False (zoo builds the causal mask itself); got a {type(is_causal).__name__}"
    )


@pytest.mark.parametrize(
    ("bias", "got"),
    [
        (torch.zeros(1, 2, T, T, dtype=torch.bool), "a torch.bool tensor of shape (1, 2, 5, 5)"),
        (torch.zeros(1, 2, T, T + 1), "a torch.float32 tensor of shape (1, 2, 5, 6)"),
        (torch.zeros(T, T), "a torch.float32 tensor of shape (5, 5)"),
    ],
)
def test_an_attention_bias_must_be_float_scores_of_its_shape(bias, got):
    with pytest.raises(ValueError) as error:
        MultiHeadAttention(D, 2)(torch.randn(B, T, D), bias=bias)
    assert str(error.value) == (
        f"bias must be a float tensor of shape (1, H, T, S) = (1, 2, 5, 5), added to the scores; got {got}"
    )
