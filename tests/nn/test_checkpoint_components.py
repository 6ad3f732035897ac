"""The components published checkpoints need, each a knob of its own, against naive float64 references and
``torch.nn.functional``: grouped-query and multi-query attention (Ainslie et al. 2023; Shazeer 2019), GELU's
tanh approximation, SiLU, the norms' epsilon, BERT's token types and embedding norm, Marian's sinusoids and
logits bias."""

import math

import pytest
import torch
import torch.nn.functional as F

from zoo.nn import ACTIVATIONS, DecoderOnly, Embedder, EncoderOnly, MultiHeadAttention, TransformerConfig
from zoo.nn.concat_sinusoid import concat_sinusoid_table
from zoo.nn.config import minimum_parameters
from zoo.nn.transformer import count_parameters


def naive_grouped_attention(attn: MultiHeadAttention, x, padding_mask, is_causal):
    """Each query head h attends with key/value head h // (H / H_kv), written out per head in float64."""
    heads, kv_heads, d_k = attn.n_heads, attn.n_kv_heads, attn.d_model // attn.n_heads
    w_q, w_k, w_v = attn.in_proj.weight.split([attn.d_model, attn.d_kv, attn.d_kv])
    b_q, b_k, b_v = attn.in_proj.bias.split([attn.d_model, attn.d_kv, attn.d_kv])
    t = x.shape[1]
    outputs = []
    for h in range(heads):
        g = h // (heads // kv_heads)
        q = x @ w_q[h * d_k : (h + 1) * d_k].T + b_q[h * d_k : (h + 1) * d_k]
        k = x @ w_k[g * d_k : (g + 1) * d_k].T + b_k[g * d_k : (g + 1) * d_k]
        v = x @ w_v[g * d_k : (g + 1) * d_k].T + b_v[g * d_k : (g + 1) * d_k]
        scores = q @ k.transpose(-1, -2) / math.sqrt(d_k)
        allowed = ~padding_mask[:, None, :].expand(-1, t, -1)
        if is_causal:
            allowed = allowed & torch.ones(t, t, dtype=torch.bool).tril()
        outputs.append(torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v)
    return attn.out_proj(torch.cat(outputs, dim=-1))


@pytest.mark.parametrize("keep_weights", [False, True])
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("n_kv_heads", [1, 2, 4])
def test_grouped_query_attention_matches_a_naive_reference(n_kv_heads, is_causal, keep_weights):
    torch.manual_seed(0)
    attn = MultiHeadAttention(16, 4, n_kv_heads=n_kv_heads).double()
    torch.nn.init.normal_(attn.in_proj.bias)
    attn.keep_weights = keep_weights
    x = torch.randn(3, 6, 16, dtype=torch.float64)
    mask = torch.zeros(3, 6, dtype=torch.bool)
    mask[1, 4:] = True
    expected = naive_grouped_attention(attn, x, mask, is_causal)
    torch.testing.assert_close(attn(x, key_padding_mask=mask, is_causal=is_causal), expected, atol=1e-10, rtol=0)


@pytest.mark.parametrize("n_kv_heads", [1, 2, 8])
def test_the_key_value_cache_shrinks_with_n_kv_heads_and_decoding_equals_recomputation(n_kv_heads):
    torch.manual_seed(1)
    model = DecoderOnly(TransformerConfig(d_model=32, n_heads=8, d_ff=64, dropout=0.0, n_kv_heads=n_kv_heads), 50, 2)
    model = model.double().eval()
    tokens = torch.randint(4, 50, (2, 7))
    cache = model.decoder.new_cache()
    steps = [model(tokens[:, i : i + 1], cache=cache) for i in range(7)]
    torch.testing.assert_close(torch.cat(steps, dim=1), model(tokens), atol=1e-10, rtol=0)
    assert cache[0].self_attn.k.shape == (2, n_kv_heads, 7, 4)


def test_fewer_key_value_heads_make_fewer_parameters_and_the_lower_bound_holds():
    sizes = {}
    for n_kv_heads in (8, 2, 1):
        config = TransformerConfig(d_model=32, n_heads=8, d_ff=64, n_kv_heads=n_kv_heads)
        sizes[n_kv_heads] = count_parameters(DecoderOnly(config, 50, 2))
        assert sizes[n_kv_heads] >= minimum_parameters(config, 2, 50)
    # each layer's W^K and W^V (weights and biases) lose (8 - H_kv) heads of 4 channels
    assert sizes[8] - sizes[2] == 2 * 2 * (8 - 2) * 4 * (32 + 1)
    assert sizes[8] - sizes[1] == 2 * 2 * (8 - 1) * 4 * (32 + 1)


@pytest.mark.parametrize("n_kv_heads", [0, 3, -1, 2.0, True, 16])
def test_key_value_heads_that_do_not_divide_n_heads_are_refused_in_one_line(n_kv_heads):
    with pytest.raises(
        ValueError, match=r"^model.n_kv_heads=.* is not valid; it must divide model.n_heads=8: one of 1, 2, 4, 8"
    ):
        TransformerConfig(d_model=32, n_heads=8, n_kv_heads=n_kv_heads)


def test_gelu_tanh_and_silu_equal_their_formulas_and_torch():
    x = torch.linspace(-6, 6, 1001, dtype=torch.float64)
    tanh = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    torch.testing.assert_close(ACTIVATIONS.build("gelu_tanh")(x), tanh, atol=1e-12, rtol=0)
    torch.testing.assert_close(ACTIVATIONS.build("gelu_tanh")(x), F.gelu(x, approximate="tanh"), atol=0, rtol=0)
    torch.testing.assert_close(ACTIVATIONS.build("silu")(x), x / (1 + torch.exp(-x)), atol=1e-12, rtol=0)
    exact = 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    torch.testing.assert_close(ACTIVATIONS.build("gelu")(x), exact, atol=1e-12, rtol=0)
    assert (ACTIVATIONS.build("gelu")(x) - tanh).abs().max() > 1e-4  # two activations, not one


@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm"])
def test_norm_eps_reaches_every_norm_of_a_model(norm):
    model = EncoderOnly(
        TransformerConfig(
            d_model=16, n_heads=2, d_ff=32, norm=norm, norm_eps=1e-12, norm_position="pre", embedding_norm=True
        ),
        20,
        2,
    )
    norms = [m for m in model.modules() if hasattr(m, "eps") and isinstance(m, torch.nn.Module)]
    assert len(norms) == 2 * 2 + 1 + 1  # two per layer, the final one, the embedding's
    assert {m.eps for m in norms} == {1e-12}


def test_norm_eps_changes_the_output_as_the_formula_says():
    x = torch.randn(2, 3, 8, dtype=torch.float64) * 1e-3
    config = TransformerConfig(d_model=8, n_heads=2, norm_eps=1e-2)
    from zoo.nn.layers import build_norm

    norm = build_norm(config, False).double()
    mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
    torch.testing.assert_close(norm(x), (x - mean) / torch.sqrt(var + 1e-2), atol=1e-12, rtol=0)
    torch.testing.assert_close(norm(x), F.layer_norm(x, (8,), eps=1e-2), atol=1e-12, rtol=0)


def test_token_types_and_embedding_norm_equal_bert_embeddings_written_out():
    torch.manual_seed(2)
    config = TransformerConfig(
        d_model=16,
        n_heads=2,
        pe="learned",
        max_len=10,
        scale_embedding=False,
        token_types=2,
        embedding_norm=True,
        norm_eps=1e-12,
        dropout=0.0,
    )
    embed = Embedder(30, config).double()
    torch.nn.init.normal_(embed.norm.weight)
    torch.nn.init.normal_(embed.norm.bias)
    tokens, types = torch.randint(1, 30, (2, 5)), torch.tensor([[0, 0, 1, 1, 1], [0, 1, 0, 1, 0]])
    summed = embed.tokens.weight[tokens] + embed.pe.table.weight[:5] + embed.types.weight[types]
    mean, var = summed.mean(-1, keepdim=True), summed.var(-1, unbiased=False, keepdim=True)
    expected = (summed - mean) / torch.sqrt(var + 1e-12) * embed.norm.weight + embed.norm.bias
    torch.testing.assert_close(embed(tokens, 0, types), expected, atol=1e-10, rtol=0)
    zeros = torch.zeros_like(tokens)
    torch.testing.assert_close(embed(tokens), embed(tokens, 0, zeros), atol=0, rtol=0)  # type 0 by default


def test_concat_sinusoids_are_the_sines_then_the_cosines_of_the_papers_angles():
    table = concat_sinusoid_table(7, 6)
    for pos in range(7):
        for i in range(3):
            angle = pos / 10000 ** (2 * i / 6)
            assert table[pos, i].item() == pytest.approx(math.sin(angle), abs=1e-15)
            assert table[pos, 3 + i].item() == pytest.approx(math.cos(angle), abs=1e-15)


def test_output_bias_is_added_to_every_position_and_starts_at_zero():
    torch.manual_seed(3)
    model = DecoderOnly(TransformerConfig(d_model=16, n_heads=2, d_ff=32, dropout=0.0, output_bias=True), 20, 1)
    bias = model.output.linear.bias
    assert bias.shape == (20,) and not bias.any()
    tokens = torch.randint(4, 20, (2, 5))
    before = model(tokens)
    with torch.no_grad():
        bias.copy_(torch.arange(20.0))
    torch.testing.assert_close(model(tokens), before + torch.arange(20.0), atol=1e-5, rtol=0)


@pytest.mark.parametrize("theta", [10000.0, 500000.0])
def test_rope_theta_turns_each_channel_pair_by_pos_times_theta_to_the_minus_2i_over_d_head(theta):
    """Su et al. 2021, eq. 34, with the base ``model.rope_theta`` (Llama 3: 500000), written out per pair."""
    embed = Embedder(30, TransformerConfig(d_model=16, n_heads=2, pe="rope", rope_theta=theta))
    x = torch.randn(1, 1, 5, 8, dtype=torch.float64)
    rotated = embed.rotary(x, start=3)
    for t in range(5):
        for i in range(4):
            angle = (3 + t) * theta ** (-2 * i / 8)
            a, b = x[0, 0, t, 2 * i], x[0, 0, t, 2 * i + 1]
            expected = torch.stack(
                [a * math.cos(angle) - b * math.sin(angle), a * math.sin(angle) + b * math.cos(angle)]
            )
            torch.testing.assert_close(rotated[0, 0, t, 2 * i : 2 * i + 2], expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize(("pe", "moves"), [("rope", True), ("sinusoidal", False), ("alibi", False)])
def test_rope_theta_moves_a_rope_model_only(pe, moves):
    ids = torch.randint(4, 30, (2, 12))
    outputs = []
    for theta in (10000.0, 500.0):
        torch.manual_seed(0)
        config = TransformerConfig(d_model=16, n_heads=2, d_ff=32, pe=pe, rope_theta=theta, dropout=0.0)
        outputs.append(DecoderOnly(config, 30, 2).eval()(ids))
    assert (not torch.equal(*outputs)) == moves


@pytest.mark.parametrize("theta", [1, 0.5, -10000.0, True, "500000"])
def test_a_rope_theta_of_one_or_less_is_refused_naming_the_field(theta):
    with pytest.raises(ValueError) as error:
        TransformerConfig(d_model=16, n_heads=2, pe="rope", rope_theta=theta)
    assert str(error.value) == (
        f"model.rope_theta={theta!r} is not valid; it must be a number above 1 (10000, Llama 3's 500000)"
    )
