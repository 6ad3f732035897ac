"""Attention equals a naive softmax(QK^T / sqrt(d_k)) V reference (Vaswani et al. 2017, eq. 1)."""

import math

import pytest
import torch

from zoo.nn import KeyValueCache, MultiHeadAttention
from zoo.nn.transformer import init_linear_weights


def naive_attention(attn: MultiHeadAttention, query, memory, key_padding_mask, is_causal):
    """softmax(Q K^T / sqrt(d_k)) V per head with masks applied as -inf, rows with no key set to 0."""
    heads = attn.n_heads
    d_k = attn.d_model // heads
    w_q, w_k, w_v = attn.in_proj.weight.chunk(3)
    b_q, b_k, b_v = attn.in_proj.bias.chunk(3)
    q = (query @ w_q.T + b_q).unflatten(-1, (heads, d_k)).transpose(1, 2)
    k = (memory @ w_k.T + b_k).unflatten(-1, (heads, d_k)).transpose(1, 2)
    v = (memory @ w_v.T + b_v).unflatten(-1, (heads, d_k)).transpose(1, 2)
    scores = q @ k.transpose(-1, -2) / math.sqrt(d_k)
    t, s = scores.shape[-2:]
    allowed = torch.ones(query.shape[0], 1, t, s, dtype=torch.bool)
    if key_padding_mask is not None:
        allowed &= ~key_padding_mask[:, None, None, :]
    if is_causal:
        allowed &= torch.ones(t, s, dtype=torch.bool).tril()
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1).nan_to_num(0.0)
    out = (weights @ v).transpose(1, 2).flatten(-2)
    return attn.out_proj(out)


@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("n_heads", [1, 4])
def test_self_attention_matches_naive_reference(is_causal, n_heads):
    torch.manual_seed(0)
    attn = MultiHeadAttention(16, n_heads).double()
    x = torch.randn(3, 7, 16, dtype=torch.float64)
    mask = torch.zeros(3, 7, dtype=torch.bool)
    mask[1, 5:] = True
    mask[2, 2:] = True
    ours = attn(x, key_padding_mask=mask, is_causal=is_causal)
    ref = naive_attention(attn, x, x, mask, is_causal)
    torch.testing.assert_close(ours, ref, atol=1e-6, rtol=0)


def test_causal_attention_without_padding_builds_no_mask_and_equals_the_reference(monkeypatch):
    """No padding and no bias: SDPA's own causal kernel, no mask tensor; the naive reference's values."""
    torch.manual_seed(3)
    attn = MultiHeadAttention(16, 4).double()
    x = torch.randn(3, 7, 16, dtype=torch.float64)
    expected = naive_attention(attn, x, x, None, True)

    def no_mask(*args):
        raise AssertionError("a mask was built for plain causal attention")

    monkeypatch.setattr("zoo.nn.attention.attention_mask", no_mask)
    torch.testing.assert_close(attn(x, is_causal=True), expected, atol=1e-6, rtol=0)


def test_checkpoints_with_separate_query_key_value_projections_still_load():
    """Checkpoints from before the stacked in_proj (q_proj, k_proj, v_proj) load to the same function."""
    torch.manual_seed(5)
    attn = MultiHeadAttention(8, 2).double()
    w, b = attn.in_proj.weight.chunk(3), attn.in_proj.bias.chunk(3)
    old = {f"{name}_proj.weight": w[i].clone() for i, name in enumerate("qkv")}
    old |= {f"{name}_proj.bias": b[i].clone() for i, name in enumerate("qkv")}
    old |= {f"out_proj.{k}": v.clone() for k, v in attn.out_proj.state_dict().items()}
    loaded = MultiHeadAttention(8, 2).double()
    loaded.load_state_dict(old)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    torch.testing.assert_close(loaded(x, is_causal=True), attn(x, is_causal=True), atol=0, rtol=0)


def test_cached_chunks_of_several_tokens_equal_the_full_pass():
    """A chunk of T > 1 new queries after S - T cached keys is causal from its offset (the bottom-right
    aligned mask, not SDPA's top-left is_causal)."""
    torch.manual_seed(6)
    attn = MultiHeadAttention(16, 4).double().eval()
    x = torch.randn(2, 9, 16, dtype=torch.float64)
    cache = KeyValueCache()
    chunks = [attn(x[:, a:b], is_causal=True, cache=cache) for a, b in ((0, 4), (4, 7), (7, 9))]
    torch.testing.assert_close(torch.cat(chunks, dim=1), attn(x, is_causal=True), atol=1e-12, rtol=0)


def test_cross_attention_matches_naive_reference():
    torch.manual_seed(1)
    attn = MultiHeadAttention(12, 3).double()
    query, memory = torch.randn(2, 4, 12, dtype=torch.float64), torch.randn(2, 6, 12, dtype=torch.float64)
    mask = torch.tensor([[False] * 6, [False] * 3 + [True] * 3])
    torch.testing.assert_close(
        attn(query, memory, key_padding_mask=mask), naive_attention(attn, query, memory, mask, False), atol=1e-6, rtol=0
    )


def test_query_with_all_keys_masked_gives_zeros_not_nan():
    attn = MultiHeadAttention(8, 2).double()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    mask = torch.zeros(2, 5, dtype=torch.bool)
    mask[1] = True
    out = attn(x, key_padding_mask=mask)
    assert torch.isfinite(out).all()
    # a row with no keys gives a zero attention output; out_proj then adds only its bias
    torch.testing.assert_close(out[1], attn.out_proj.bias.expand(5, 8))
    out.sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in attn.parameters())


def test_left_padded_causal_rows_are_finite():
    attn = MultiHeadAttention(8, 2)
    mask = torch.tensor([[True, True, False, False]])
    assert torch.isfinite(attn(torch.randn(1, 4, 8), key_padding_mask=mask, is_causal=True)).all()


def test_incremental_decoding_with_cache_equals_full_pass():
    torch.manual_seed(2)
    attn = MultiHeadAttention(16, 4).double().eval()
    x = torch.randn(2, 6, 16, dtype=torch.float64)
    full = attn(x, is_causal=True)
    cache = KeyValueCache()
    steps = [attn(x[:, :3], is_causal=True, cache=cache)]
    steps += [attn(x[:, t : t + 1], is_causal=True, cache=cache) for t in range(3, 6)]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-12, rtol=0)
    assert cache.length == 6


def test_static_cross_attention_cache_is_filled_once():
    attn = MultiHeadAttention(8, 2).double().eval()
    memory = torch.randn(1, 5, 8, dtype=torch.float64)
    cache = KeyValueCache(static=True)
    first = attn(torch.randn(1, 1, 8, dtype=torch.float64), memory, cache=cache)
    k = cache.k
    attn(torch.randn(1, 1, 8, dtype=torch.float64), memory, cache=cache)
    assert cache.k is k and first.shape == (1, 1, 8)


@pytest.mark.parametrize(("d_model", "n_heads"), [(10, 3), (8, 0), (0, 2)])
def test_d_model_not_divisible_by_n_heads_raises(d_model, n_heads):
    with pytest.raises(ValueError, match=f"model.d_model={d_model} .*model.n_heads={n_heads}"):
        MultiHeadAttention(d_model, n_heads)


def test_recorded_weights_only_when_asked_and_the_output_is_unchanged():
    from zoo.nn.attention_maps import recorded_attention

    torch.manual_seed(2)
    attn = MultiHeadAttention(16, 4).double()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    mask = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    fast = attn(x, key_padding_mask=mask, is_causal=True)
    assert attn.weights is None
    with recorded_attention(attn) as weights:
        slow = attn(x, key_padding_mask=mask, is_causal=True)
    torch.testing.assert_close(slow, fast, atol=1e-10, rtol=0)
    assert weights[""].shape == (2, 4, 5, 5) and attn.weights is None and not attn.keep_weights
    torch.testing.assert_close(weights[""].sum(-1), torch.ones(2, 4, 5, dtype=torch.float64))
    future = torch.ones(5, 5, dtype=torch.bool).triu(1)
    assert (weights[""][:, :, future] == 0).all() and (weights[""][1, :, :, 3:] == 0).all()


def test_the_stacked_projection_is_initialised_as_three_square_matrices():
    """Xavier initialisation of in_proj gives W^Q, W^K and W^V each the scale of a (D, D) matrix (as the
    separate projections had), not the smaller one of a (3 D, D) matrix; the same draws, in the same order."""
    attn = MultiHeadAttention(16, 4)
    torch.manual_seed(0)
    init_linear_weights(attn)
    torch.manual_seed(0)
    expected = [torch.nn.init.xavier_uniform_(torch.empty(16, 16)) for _ in range(3)]
    assert torch.equal(attn.in_proj.weight, torch.cat(expected)) and not attn.in_proj.bias.any()
