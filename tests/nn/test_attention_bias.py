"""Attention-bias positional encodings (ALiBi, T5's relative bias): their formulas, where they live, that
cross-attention and the attention-map path treat them right, and that they run past ``max_len``."""

import pytest
import torch

from tests.nn.conftest import VOCAB, build, run, tiny_config
from zoo.nn import DecoderOnly, EncoderDecoder, MultiHeadAttention
from zoo.nn.alibi import ALiBi, alibi_slopes
from zoo.nn.attention_maps import recorded_attention
from zoo.nn.positional import PositionalEncoding
from zoo.nn.t5_bias import relative_position_bucket
from zoo.registry import POSITIONAL_ENCODINGS

BIASES = [name for name in POSITIONAL_ENCODINGS.names() if POSITIONAL_ENCODINGS.get(name).scope == "stack"]
UNLIMITED = [name for name in BIASES if not POSITIONAL_ENCODINGS.get(name).length_limited]  # no table of max_len


def test_the_bias_encodings_are_registered():
    assert {"alibi", "t5"} <= set(BIASES)


@pytest.mark.parametrize(
    ("scope", "hook", "needed"), [("embedding", "attention_bias", "stack"), ("stack", "forward", "embedding")]
)
def test_a_hook_that_the_scope_never_calls_is_refused_when_the_class_is_defined(scope, hook, needed):
    """An attention bias of scope "embedding" would be built by the embedder and never called: the model would
    silently be ``pe=none`` (and "stack" encodings never reach the embeddings)."""
    hooks = {hook: lambda self, *args, **kwargs: None, "scope": scope}
    with pytest.raises(TypeError, match=rf"Forgot overrides {hook}, which is called only for an encoding of "
                       rf"scope='{needed}'; set scope = '{needed}' \(its scope is '{scope}'\)"):  # fmt: skip
        type("Forgot", (PositionalEncoding,), hooks)


def test_alibi_slopes_are_the_papers_geometric_sequence():
    assert alibi_slopes(8) == [2.0**-h for h in range(1, 9)]
    # 12 heads: the 8 slopes of 8 heads, then every other slope of 16 heads (2^-0.5, 2^-1.5, ...)
    assert alibi_slopes(12) == alibi_slopes(8) + [2.0 ** -(h + 0.5) for h in range(4)]


@pytest.mark.parametrize("causal", [False, True])
def test_alibi_bias_is_minus_slope_times_distance(causal):
    bias = ALiBi(16, 4, 8, causal=causal).double().attention_bias(5, 5)
    slopes = torch.tensor(alibi_slopes(4), dtype=torch.float64)
    i, j = torch.arange(5)[:, None], torch.arange(5)[None, :]
    distance = (i - j) if causal else (i - j).abs()
    torch.testing.assert_close(bias, -(slopes[:, None, None] * distance)[None])
    allowed = j <= i  # where a causal stack attends, both forms agree
    symmetric = ALiBi(16, 4, 8, causal=not causal).double().attention_bias(5, 5)
    torch.testing.assert_close(bias[..., allowed], symmetric[..., allowed])


@pytest.mark.parametrize("pe", BIASES)
@pytest.mark.parametrize("causal", [False, True])
def test_the_bias_of_new_queries_is_their_rows_of_the_full_bias(pe, causal):
    torch.manual_seed(0)
    max_len = 256 if POSITIONAL_ENCODINGS.get(pe).length_limited else 8  # past max_len where it has no limit
    module = POSITIONAL_ENCODINGS.build(pe, 16, 4, max_len, causal=causal)
    full = module.attention_bias(200, 200)
    torch.testing.assert_close(module.attention_bias(3, 150, offset=147), full[:, :, 147:150, :150])


RELATIVE = [-1000, -128, -127, -64, -40, -17, -16, -9, -8, -7, -1, 0, 1, 7, 8, 9, 16, 40, 64, 127, 128, 1000]
# T5Attention._relative_position_bucket(RELATIVE, bidirectional, 32, 128) of Hugging Face transformers 5.18
BIDIRECTIONAL = [15, 15, 15, 14, 12, 10, 10, 8, 8, 7, 1, 0, 17, 23, 24, 24, 26, 28, 30, 31, 31, 31]
UNIDIRECTIONAL = [31, 31, 31, 26, 23, 16, 16, 9, 8, 7, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(("bidirectional", "expected"), [(True, BIDIRECTIONAL), (False, UNIDIRECTIONAL)])
def test_t5_buckets_equal_the_reference_implementation(bidirectional, expected):
    assert relative_position_bucket(torch.tensor(RELATIVE), bidirectional).tolist() == expected


def test_t5_buckets_of_a_decoder_ignore_later_keys_and_share_the_last_bucket_far_away():
    buckets = relative_position_bucket(torch.tensor([5, 1, 0, -1, -7, -8, -127, -128, -10_000]), False)
    assert buckets.tolist() == [0, 0, 0, 1, 7, 8, 31, 31, 31]


def test_t5_has_one_table_per_stack_shared_by_its_layers():
    config = tiny_config(pe="t5")
    model = EncoderDecoder(config, VOCAB, VOCAB, 3, 2, share_embeddings=True)
    tables = {name: p for name, p in model.named_parameters() if "position_bias" in name}
    assert sorted(tables) == ["decoder.position_bias.table.weight", "encoder.position_bias.table.weight"]
    assert all(p.shape == (32, config.n_heads) for p in tables.values())
    assert not model.encoder.position_bias.causal and model.decoder.position_bias.causal
    assert list(model.src_embed.pe.parameters()) == []


@pytest.mark.parametrize("pe", BIASES)
def test_cross_attention_ignores_the_bias(pe):
    torch.manual_seed(0)
    attention = MultiHeadAttention(16, 4).double().eval()
    query, memory = torch.randn(2, 3, 16, dtype=torch.float64), torch.randn(2, 5, 16, dtype=torch.float64)
    bias = torch.randn(1, 4, 3, 5, dtype=torch.float64)
    torch.testing.assert_close(attention(query, memory, bias=bias), attention(query, memory))
    assert not torch.allclose(attention(query, bias=torch.randn(1, 4, 3, 3, dtype=torch.float64)), attention(query))


@pytest.mark.parametrize("architecture", ["encoder_decoder", "encoder_only", "decoder_only"])
@pytest.mark.parametrize("pe", BIASES)
def test_recorded_attention_computes_what_the_fused_kernel_does(pe, architecture):
    model = build(architecture, tiny_config(pe=pe)).double().eval()
    tokens = torch.randint(1, VOCAB, (2, 7))
    mask = torch.zeros(2, 7, dtype=torch.bool)
    mask[1, 4:] = True
    fused = run(model, tokens, mask)
    with recorded_attention(model) as weights:
        recorded = run(model, tokens, mask)
    torch.testing.assert_close(recorded, fused)
    name = "decoder.layers.0.self_attn" if architecture != "encoder_only" else "encoder.layers.0.self_attn"
    torch.testing.assert_close(weights[name].sum(-1), torch.ones(2, 2, 7, dtype=torch.float64))


def test_alibi_and_t5_have_no_length_limit():
    assert {"alibi", "t5"} <= set(UNLIMITED) and "learned" not in UNLIMITED


@pytest.mark.parametrize("pe", UNLIMITED)
def test_bias_encodings_run_past_max_len(pe):
    model = DecoderOnly(tiny_config(pe=pe, max_len=8), VOCAB, 1).eval()
    assert model(torch.randint(1, VOCAB, (1, 40))).shape == (1, 40, VOCAB)


@pytest.mark.parametrize(
    ("hook", "scope", "signature", "called"),
    [
        ("attention_bias", "stack", "(self, query_len, key_len)", "attention_bias(query_len, key_len, offset)"),
        ("forward", "embedding", "(self, x)", "forward(x, start)"),
    ],
)
def test_a_hook_of_another_signature_is_refused_when_the_class_is_defined(hook, scope, signature, called):
    """It was a TypeError in the first training step ("takes 2 positional arguments but 3 were given")."""
    method = (lambda self, query_len, key_len: None) if hook == "attention_bias" else (lambda self, x: x)
    with pytest.raises(TypeError) as error:
        type("Odd", (PositionalEncoding,), {hook: method, "scope": scope})
    assert str(error.value) == f"Odd.{hook}{signature} cannot be called as {called}, as the zoo calls it"


@pytest.mark.parametrize(
    ("pe", "wrong", "message"),
    [  # a transposed bias trained without a complaint where T == S; a forward returning its table, not x + table
        ("alibi", lambda bias: bias.transpose(-1, -2), "ALiBi.attention_bias returned a tensor of shape (1, 2, 7, 3), "
         "not (1, 2, 3, 7)"),
        ("t5", lambda bias: bias[0, 0], "T5RelativeBias.attention_bias returned a tensor of shape (3, 7), not "
         "(1, 2, 3, 7)"),
        ("learned", lambda x: x[:1], "LearnedPositionalEncoding.forward returned a tensor of shape (1, 3, 16), not "
         "(2, 3, 16)"),
    ],
)  # fmt: skip
def test_a_hook_output_of_another_shape_stops_the_forward_pass_naming_it(pe, wrong, message, monkeypatch):
    model = DecoderOnly(tiny_config(pe=pe), VOCAB, 1).eval()
    cache = model.decoder.new_cache()
    with torch.no_grad():
        model(torch.randint(1, VOCAB, (2, 4)), cache=cache)  # 4 positions cached: then 3 queries, 7 keys
        module = model.decoder.position_bias or model.embed.pe
        hook = "attention_bias" if module is model.decoder.position_bias else "forward"
        original = getattr(module, hook)
        monkeypatch.setattr(module, hook, lambda *args: wrong(original(*args)))
        with pytest.raises(ValueError) as error:
            model(torch.randint(1, VOCAB, (2, 3)), cache=cache)
    assert str(error.value).startswith(message)
