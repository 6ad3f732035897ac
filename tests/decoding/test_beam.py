"""Beam search: beam 1 is greedy, n-best lists are distinct and sorted, scores are the model's
log-probabilities, sentences do not influence each other, and finished hypotheses wait for open beams."""

import pytest
import torch

from tests.decoding.conftest import BOS, EOS, PAD, ScriptedStep, encoder_decoder, sources
from zoo.decoding import (
    EncoderDecoderStep,
    beam_search,
    greedy_decode,
    length_penalty,
    max_lengths,
    strip_after_eos,
    translate_ids,
)
from zoo.registry import POSITIONAL_ENCODINGS

LIMIT = torch.tensor([12, 6, 9, 4])


def beam(model, src, mask, beam_size, alpha=0.0, n_best=1, limit=LIMIT):
    step = EncoderDecoderStep(model, src, mask, copies=beam_size)
    return beam_search(step, torch.full((len(src), 1), BOS), beam_size, limit, EOS, alpha, n_best)


def teacher_forced_log_prob(model, src, tokens, ended):
    """log p(tokens [, <eos>] | src) from one full forward pass."""
    target = tokens + [EOS] if ended else tokens
    logits = model(src[None], torch.tensor([[BOS, *target[:-1]]]))
    return torch.log_softmax(logits, -1)[0, torch.arange(len(target)), torch.tensor(target)].sum().item()


@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
def test_beam_size_one_is_greedy_in_a_batch_and_alone(pe):
    model = encoder_decoder(pe)
    src, mask = sources()
    greedy = strip_after_eos(greedy_decode(model, src, mask, BOS, EOS, PAD, LIMIT), EOS, LIMIT)
    batched = [found[0].tokens for found in beam(model, src, mask, 1, alpha=0.6)]
    alone = [beam(model, src[i : i + 1], mask[i : i + 1], 1, 0.6, limit=LIMIT[i : i + 1])[0][0] for i in range(4)]
    alone = [hypothesis.tokens for hypothesis in alone]
    assert batched == greedy == alone
    assert {len(tokens) for tokens in greedy} != {0}  # the hypotheses are not all empty


def test_n_best_lists_are_distinct_and_sorted():
    model = encoder_decoder()
    src, mask = sources()
    for found in beam(model, src, mask, beam_size=5, alpha=0.6, n_best=5):
        assert len(found) == 5
        assert len({tuple(h.tokens) for h in found}) == 5
        scores = [h.score for h in found]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("alpha", [0.0, 0.6])
def test_reported_scores_are_teacher_forced_log_probabilities(alpha):
    model = encoder_decoder(seed=3, eos=0.12)
    src, mask = sources()
    found = beam(model, src, mask, beam_size=4, alpha=alpha, n_best=4)
    assert any(h.ended for hypotheses in found for h in hypotheses)
    for i, hypotheses in enumerate(found):
        real = src[i][~mask[i]]
        for h in hypotheses:
            expected = teacher_forced_log_prob(model, real, h.tokens, h.ended)
            assert h.log_prob == pytest.approx(expected, abs=1e-4)
            assert h.score == pytest.approx(h.log_prob / length_penalty(len(h.tokens) + h.ended, alpha), abs=1e-9)


def test_a_sentence_does_not_depend_on_its_batch():
    model = encoder_decoder(seed=3, eos=0.12)
    src, mask = sources()
    batched = beam(model, src, mask, beam_size=3, alpha=0.6, n_best=3)
    for i in range(4):
        alone = beam(model, src[i : i + 1, : int((~mask[i]).sum())], None, 3, 0.6, 3, LIMIT[i : i + 1])[0]
        assert [h.tokens for h in alone] == [h.tokens for h in batched[i]]
        assert [h.log_prob for h in alone] == pytest.approx([h.log_prob for h in batched[i]], abs=1e-9)


def test_translate_ids_greedy_and_beam_agree_at_beam_one():
    model = encoder_decoder()
    src, mask = sources()
    limit = max_lengths(mask, 1.0, 5)
    greedy = translate_ids(model, src, mask, BOS, EOS, PAD, limit)
    one = translate_ids(model, src, mask, BOS, EOS, PAD, limit, beam_size=1, n_best=1, length_penalty=1.0)
    searched = beam(model, src, mask, 1, limit=limit)
    assert [g[0].tokens for g in greedy] == [o[0].tokens for o in one] == [s[0].tokens for s in searched]


def test_finished_hypotheses_wait_until_no_open_beam_can_beat_them():
    # "<eos>" first is the best single step, but nine tokens then <eos> win once the length penalty counts
    short = beam_search(ScriptedStep(2), torch.full((1, 1), BOS), 2, 20, EOS, alpha=0.0)[0][0]
    long = beam_search(ScriptedStep(2), torch.full((1, 1), BOS), 2, 20, EOS, alpha=1.0)[0][0]
    assert short.tokens == [] and short.ended
    assert long.tokens == [3] * 9 and long.ended


def test_hypotheses_stop_at_their_own_length_limit():
    limit = torch.tensor([3, 5])
    step = ScriptedStep(2 * 2, long=100)  # after the first token <eos> is unlikely: hypotheses run to the limit
    found = beam_search(step, torch.full((2, 1), BOS), 2, limit, EOS, alpha=1.0, n_best=2)
    cut = [[h.tokens for h in hypotheses if not h.ended] for hypotheses in found]
    assert cut == [[[3] * 3], [[3] * 5]]


def test_max_lengths_are_a_times_source_length_plus_b():
    mask = torch.tensor([[False] * 3 + [True] * 2, [False] * 5])
    assert max_lengths(mask, 1.5, 2).tolist() == [6, 9]  # floor(1.5 * 3 + 2), floor(1.5 * 5 + 2)
    assert max_lengths(mask, 1.5, 2, max_positions=8).tolist() == [6, 8]
    assert max_lengths(mask, 0.0, 0).tolist() == [1, 1]


def test_gnmt_length_penalty():
    assert length_penalty(10, 0.6) == pytest.approx((15 / 6) ** 0.6)  # Wu et al. 2016, eq. 14
    assert length_penalty(1, 0.6) == 1.0 and length_penalty(7, 0.0) == 1.0


@pytest.mark.parametrize(
    ("beam_size", "n_best", "alpha", "message"),
    [
        (0, 1, 0.0, "beam_size=0 is not valid; it must be at least 1"),
        (2, 3, 0.0, "n_best=3 is not valid; it must be between 1 and beam_size=2"),
        (2, 1, -0.5, "length_penalty=-0.5 is not valid; it must be at least 0 (Wu et al. 2016: 0.6)"),
    ],
)
def test_bad_settings_are_refused(beam_size, n_best, alpha, message):
    with pytest.raises(ValueError) as error:
        beam_search(ScriptedStep(2), torch.full((1, 1), BOS), beam_size, 5, EOS, alpha, n_best)
    assert str(error.value) == message
