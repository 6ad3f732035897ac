"""Beam search with its bookkeeping on the device finds what a search that reads the device at every step finds
(:mod:`tests.decoding.reference_beam`): the same hypotheses, in the same order, with the same scores, for every
beam size, ``n_best``, length penalty and length limit, on the Transformer, the recurrent decoder and a language
model; and it reads the device at no step."""

import pytest
import torch

from tests.decoding.conftest import BOS, EOS, ScriptedStep, encoder_decoder, language_model, sources
from tests.decoding.reference_beam import reference_beam_search
from tests.training.host_reads import ReadCounter
from zoo.decoding import (
    DecoderOnlyStep,
    EncoderDecoderStep,
    encoder_decoder_step,
    longest,
    max_lengths,
    search,
    search_translations,
    strip_after_eos,
)
from zoo.decoding.stopping import LAG
from zoo.nn.recurrent import RecurrentConfig, RecurrentEncoderDecoder


def as_tuples(found) -> list[list[tuple]]:
    return [[(h.tokens, h.log_prob, h.score, h.ended) for h in hypotheses] for hypotheses in found]


def both(make_step, start, beam_size, limit, alpha, n_best):
    """The device-side search's hypotheses and the reference's, each from a fresh step."""
    found = search(make_step(), start, beam_size, limit, EOS, alpha, n_best).hypotheses()
    expected = reference_beam_search(make_step(), start, beam_size, limit, EOS, alpha, n_best)
    return as_tuples(found), as_tuples(expected)


@pytest.mark.parametrize("seed", [0, 3, 5])
@pytest.mark.parametrize(("beam_size", "n_best"), [(1, 1), (2, 1), (3, 3), (5, 2), (6, 6)])
@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.5])
def test_transformer_translations_equal_the_reference(seed, beam_size, n_best, alpha):
    model = encoder_decoder(seed=seed, eos=0.12)
    src, mask = sources()
    limit = max_lengths(mask, 1.2, 3)
    start = torch.full((len(src), 1), BOS)
    found, expected = both(lambda: EncoderDecoderStep(model, src, mask, copies=beam_size), start, beam_size, limit,
                           alpha, n_best)  # fmt: skip
    assert found == expected and all(len(hypotheses) == n_best for hypotheses in found)


@pytest.mark.parametrize("limit", [1, 4, torch.tensor([20, 3]), torch.tensor([9, 9])])
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_scripted_hypotheses_that_wait_and_that_are_cut_equal_the_reference(limit, alpha):
    start = torch.full((2, 1), BOS)
    found, expected = both(lambda: ScriptedStep(2 * 3), start, 3, limit, alpha, 2)
    assert found == expected and all(found)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("attention", ["none", "additive", "general"])
def test_recurrent_translations_equal_the_reference(cell, attention):
    torch.manual_seed(2)
    config = RecurrentConfig(cell=cell, attention=attention, d_embed=8, hidden_size=12, dropout=0.0)
    model = RecurrentEncoderDecoder(config, 23, 23, 1, 1).double().eval()
    src, mask = sources()
    limit = max_lengths(mask, 1.0, 4)
    start = torch.full((len(src), 1), BOS)
    found, expected = both(lambda: encoder_decoder_step(model, src, mask, copies=3), start, 3, limit, 0.6, 3)
    assert found == expected


@pytest.mark.parametrize("beam_size", [2, 4])
def test_language_model_continuations_equal_the_reference(beam_size):
    model = language_model()
    prompt = torch.tensor([[BOS, 5, 7, 9]])
    found, expected = both(lambda: DecoderOnlyStep(model), prompt, beam_size, 15, 0.6, beam_size)
    assert found == expected


def test_no_step_reads_the_device_and_the_best_ids_read_as_text_later():
    model = encoder_decoder(seed=3, eos=0.12)
    src, mask = sources()
    limit = max_lengths(mask, 1.2, 3)
    with ReadCounter() as counter:
        counter.step = 0
        found = search_translations(model, src, mask, BOS, EOS, limit, 4, 0.6, 2, max_steps=longest(7, 1.2, 3))
        counter.step = None
    assert counter.reads == {}
    best = [hypotheses[0].tokens for hypotheses in found.hypotheses()]
    assert strip_after_eos(found.ids[:, 0], EOS, limit) == best  # what PendingText reads at the epoch's end
    assert found.ids.shape[2] <= int(limit.max())  # cut to the steps that found something


def test_a_batch_of_no_sentences_finds_nothing():
    found = search(ScriptedStep(0), torch.full((0, 1), BOS), 3, torch.zeros(0, dtype=torch.long), EOS, 0.6, 2)
    assert found.hypotheses() == [] and found.ids.shape == (0, 2, 0)


@pytest.mark.parametrize(("alpha", "last"), [(0.0, 1), (1.0, 10)])
def test_the_search_stops_a_few_steps_after_no_open_beam_can_win(alpha, last):
    """Without a length penalty ``<eos>`` at step 1 (0.55) beats every open beam for good; with alpha 1 the
    hypothesis of nine tokens then ``<eos>`` (step 10) does. The loop learns it ``LAG`` steps later, and stops."""
    step = ScriptedStep(2)
    found = search(step, torch.full((1, 1), BOS), 2, 100, EOS, alpha)
    assert step.position == last + LAG
    assert found.ids.shape[2] == last and found.hypotheses()[0][0].tokens == [3] * (last - 1)
