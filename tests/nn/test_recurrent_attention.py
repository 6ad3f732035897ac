"""The recurrent decoders' attentions against hand computations in float64, and their masking."""

import math

import pytest
import torch

from zoo.nn.recurrent import masked_softmax
from zoo.registry import RNN_ATTENTIONS

B, T, S, H = 2, 3, 4, 5


def hand_scores(name: str, module, query, memory):
    """The paper's score of each (t, s) pair, one pair at a time in plain Python loops."""
    scores = torch.empty(B, T, S, dtype=torch.float64)
    for b in range(B):
        for t in range(T):
            for s in range(S):
                q, h = query[b, t], memory[b, s]
                if name in ("additive", "concat"):  # v^T tanh(W q + U h)
                    e = module.v.weight[0] @ torch.tanh(module.query_proj.weight @ q + module.key_proj.weight @ h)
                elif name == "dot":  # q^T h, the directions summed when h is 2 H wide
                    e = q @ (h if h.shape[0] == H else h[:H] + h[H:])
                else:  # general: q^T W_a h
                    e = q @ (module.key_proj.weight @ h)
                scores[b, t, s] = e
    return scores


@pytest.mark.parametrize("memory_size", [H, 2 * H])
@pytest.mark.parametrize("name", ["additive", "dot", "general", "concat"])
def test_scores_and_context_match_hand_computation(name, memory_size):
    torch.manual_seed(0)
    module = RNN_ATTENTIONS.build(name, H, memory_size).double().requires_grad_(False)
    query = torch.randn(B, T, H, dtype=torch.float64)
    memory = torch.randn(B, S, memory_size, dtype=torch.float64)
    keys = module.keys(memory)
    expected = hand_scores(name, module, query, memory)
    torch.testing.assert_close(module.scores(query, keys), expected, rtol=1e-12, atol=1e-12)
    mask = torch.tensor([[False, False, False, True], [False, True, True, True]])
    context = module(query, keys, memory, mask)
    for b in range(B):
        real = (~mask[b]).nonzero().flatten().tolist()
        for t in range(T):
            weights = [math.exp(expected[b, t, s]) for s in real]
            hand = sum(w * memory[b, s] for w, s in zip(weights, real, strict=True)) / sum(weights)
            torch.testing.assert_close(context[b, t], hand, rtol=1e-12, atol=1e-12)


def test_padding_gets_zero_weight_and_a_fully_padded_row_is_finite():
    scores = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
    mask = torch.tensor([[False, False, True, True], [True, True, True, True], [False] * 4])
    weights = masked_softmax(scores, mask)
    assert (weights[0, :, 2:] == 0).all() and (weights[1] == 0).all()
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(2, dtype=torch.float64))
    torch.testing.assert_close(weights[2], torch.softmax(scores[2], -1))
    weights.sum().backward()
    assert torch.isfinite(scores.grad).all() and (scores.grad[1] == 0).all()


def test_scores_at_padding_do_not_move_the_context():
    torch.manual_seed(1)
    module = RNN_ATTENTIONS.build("general", H, H).double()
    query, memory = torch.randn(B, T, H, dtype=torch.float64), torch.randn(B, S, H, dtype=torch.float64)
    mask = torch.tensor([[False, False, True, True]] * B)
    changed = memory.clone()
    changed[:, 2:] = 100.0
    before = module(query, module.keys(memory), memory, mask)
    after = module(query, module.keys(changed), changed, mask)
    torch.testing.assert_close(before, after, rtol=0, atol=0)


def test_dot_refuses_memory_it_cannot_compare():
    module = RNN_ATTENTIONS.build("dot", 4, 6)
    with pytest.raises(ValueError, match=r"^model.rnn_attention='dot' compares decoder states of 4 with encoder"):
        module.keys(torch.zeros(1, 2, 6))


def test_every_choice_is_registered():
    assert RNN_ATTENTIONS.names() == ["none", "context", "additive", "dot", "general", "concat"]
