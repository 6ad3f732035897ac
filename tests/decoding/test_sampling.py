"""Sampling and language-model generation: top-k/top-p keep only the allowed tokens, a seed fixes the
sample, and generation with the cache (and a sliding window) equals recomputing the whole context."""

import pytest
import torch

from tests.decoding.conftest import EOS, PAD, VOCAB, language_model
from zoo.decoding import DecoderOnlyStep, filter_logits, generate_ids, next_token
from zoo.registry import POSITIONAL_ENCODINGS


def test_top_k_keeps_the_k_most_likely_tokens():
    logits = torch.randn(5, VOCAB)
    kept = filter_logits(logits, top_k=3).isfinite()
    assert kept.sum(dim=1).tolist() == [3] * 5
    assert (kept == torch.zeros_like(kept).scatter(1, logits.topk(3).indices, True)).all()


@pytest.mark.parametrize(("top_p", "allowed"), [(0.3, [1]), (0.75, [1, 3]), (0.95, [1, 3, 0])])
def test_top_p_keeps_the_smallest_set_reaching_p(top_p, allowed):
    logits = torch.tensor([[0.15, 0.5, 0.05, 0.3]]).log()
    kept = filter_logits(logits, top_p=top_p).isfinite()[0]
    assert kept.nonzero().flatten().tolist() == sorted(allowed)


@pytest.mark.parametrize(("top_k", "top_p"), [(2, None), (None, 0.6), (3, 0.6)])
def test_samples_come_only_from_the_allowed_tokens(top_k, top_p):
    logits = torch.tensor([0.05, 0.1, 0.4, 0.3, 0.15]).log().expand(2000, -1)
    drawn = next_token(logits, 1.0, top_k, top_p, torch.Generator().manual_seed(0))
    assert set(drawn.tolist()) == {2, 3}  # the two most likely, in each setting


def test_a_seed_fixes_the_sample():
    model = language_model()
    prompt = torch.tensor([5, 6, 7])

    def draw(seed):
        generator = torch.Generator().manual_seed(seed)
        return generate_ids(model, prompt, 12, EOS, PAD, num_samples=3, temperature=1.0, top_k=10, generator=generator)

    first = draw(1)
    assert first == draw(1)
    assert first != draw(2)
    assert len({tuple(s) for s in first}) > 1  # three different samples


def recomputed_greedy(model, prompt, steps, window=None):
    """Greedy continuation by rerunning the model on the whole context (cropped to ``window``) at each step."""
    tokens = prompt[None]
    for _ in range(steps):
        context = tokens if window is None else tokens[:, -window:]
        tokens = torch.cat([tokens, model(context)[:, -1].argmax(-1, keepdim=True)], dim=1)
    return tokens[0, len(prompt) :].tolist()


@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
def test_cached_generation_equals_recomputation(pe):
    model = language_model(pe)
    prompt = torch.tensor([4, 9, 11, 5])
    cached = generate_ids(model, prompt, 15, eos_id=-1, pad_id=PAD)[0]
    assert cached == recomputed_greedy(model, prompt, 15)


def test_the_window_slides_past_learned_positions_as_nanogpt_crops():
    model = language_model("learned", max_len=8)
    prompt = torch.tensor([4, 9, 11])
    cached = generate_ids(model, prompt, 20, eos_id=-1, pad_id=PAD, window=8)[0]
    assert len(cached) == 20
    assert cached == recomputed_greedy(model, prompt, 20, window=8)


def test_beam_search_continues_a_prompt():
    model = language_model()
    prompt = torch.tensor([4, 9])
    one = generate_ids(model, prompt, 10, eos_id=-1, pad_id=PAD, beam_size=1)
    best = generate_ids(model, prompt, 10, eos_id=-1, pad_id=PAD, beam_size=4, num_samples=4)
    assert len(best) == 4 and len({tuple(b) for b in best}) == 4 and all(len(b) == 10 for b in best)
    log_prob = [_log_prob(model, prompt, b) for b in best]
    assert log_prob == sorted(log_prob, reverse=True)
    assert log_prob[0] >= _log_prob(model, prompt, one[0]) - 1e-9  # beam 4 finds at least greedy's


def _log_prob(model, prompt, continuation):
    tokens = torch.cat([prompt, torch.tensor(continuation)])
    log_probs = torch.log_softmax(model(tokens[None, :-1])[0], -1)
    positions = torch.arange(len(prompt) - 1, len(tokens) - 1)
    return log_probs[positions, tokens[len(prompt) :]].sum().item()


def test_the_step_keeps_its_history_in_order_under_reordering():
    step = DecoderOnlyStep(language_model())
    step(torch.tensor([[4, 5], [6, 7]]))
    step.reorder(torch.tensor([1, 1]))
    step(torch.tensor([[8], [9]]))
    assert step.history.tolist() == [[6, 7, 8], [6, 7, 9]]
