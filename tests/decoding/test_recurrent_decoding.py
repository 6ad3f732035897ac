"""Greedy and beam search over the recurrent networks' steps: beam 1 is greedy, a sentence's hypotheses do
not depend on its batch, and the state beam search reorders (input feeding included) is the one recomputed
from scratch."""

import pytest
import torch

from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.decoding import beam_search, encoder_decoder_step, generate_ids, max_lengths, sample, translate_ids
from zoo.decoding.recurrent import RecurrentEncoderDecoderStep, RecurrentLanguageModelStep
from zoo.nn.recurrent import RecurrentConfig, RecurrentEncoderDecoder, RecurrentLanguageModel

V = 17
DECODERS = [("gru", "none", False), ("lstm", "context", False), ("gru", "additive", False), ("lstm", "dot", True),
            ("gru", "general", True), ("lstm", "concat", False)]  # fmt: skip


def translator(cell, attention, feeding):
    torch.manual_seed(3)
    config = RecurrentConfig(cell, 8, 8, 0.0, True, attention, feeding)
    return RecurrentEncoderDecoder(config, V, V, 2, 1).double().eval()


def sources():
    src = torch.tensor([[5, 6, 7, 8, 9, 10], [11, 12, 13, 0, 0, 0], [4, 0, 0, 0, 0, 0]])
    return src, src == PAD_ID


@pytest.mark.parametrize(("cell", "attention", "feeding"), DECODERS)
def test_beam_one_is_greedy(cell, attention, feeding):
    model = translator(cell, attention, feeding)
    src, mask = sources()
    limit = max_lengths(mask, 1.0, 5)
    greedy = translate_ids(model, src, mask, BOS_ID, EOS_ID, PAD_ID, limit)
    start = torch.full((3, 1), BOS_ID)
    beam = beam_search(encoder_decoder_step(model, src, mask), start, 1, limit, EOS_ID)
    assert [found[0].tokens for found in greedy] == [found[0].tokens for found in beam]


@pytest.mark.parametrize(("cell", "attention", "feeding"), DECODERS)
def test_beam_search_is_batch_independent(cell, attention, feeding):
    model = translator(cell, attention, feeding)
    src, mask = sources()
    limit = max_lengths(mask, 1.0, 5)
    batched = translate_ids(model, src, mask, BOS_ID, EOS_ID, PAD_ID, limit, beam_size=3, n_best=2)
    for row, length in enumerate((6, 3, 1)):
        alone = translate_ids(model, src[row : row + 1, :length], mask[row : row + 1, :length], BOS_ID, EOS_ID,
                              PAD_ID, limit[row : row + 1], beam_size=3, n_best=2)  # fmt: skip
        assert [h.tokens for h in alone[0]] == [h.tokens for h in batched[row]]
        for a, b in zip(alone[0], batched[row], strict=True):
            assert a.log_prob == pytest.approx(b.log_prob, abs=1e-9)


@pytest.mark.parametrize(("cell", "attention", "feeding"), DECODERS)
def test_a_beam_log_probability_is_the_teacher_forced_one(cell, attention, feeding):
    """The reordered state is the hypothesis's own: its score equals the sum of the network's teacher-forced
    log-probabilities of its tokens (and <eos>)."""
    model = translator(cell, attention, feeding)
    src, mask = sources()
    found = translate_ids(model, src, mask, BOS_ID, EOS_ID, PAD_ID, max_lengths(mask, 1.0, 5), beam_size=4, n_best=3)
    for row, hypotheses in enumerate(found):
        for h in hypotheses:
            tokens = h.tokens + ([EOS_ID] if h.ended else [])
            tgt = torch.tensor([[BOS_ID, *tokens[:-1]]])
            with torch.no_grad():
                log_probs = torch.log_softmax(model(src[row : row + 1], tgt, mask[row : row + 1]), -1)[0]
            expected = sum(float(log_probs[t, token]) for t, token in enumerate(tokens))
            assert h.log_prob == pytest.approx(expected, abs=1e-8)


def test_the_encoder_decoder_step_is_recurrent():
    model = translator("gru", "additive", False)
    src, mask = sources()
    assert isinstance(encoder_decoder_step(model, src, mask, 2), RecurrentEncoderDecoderStep)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_the_language_model_beam_one_is_greedy_and_continues_its_state(cell):
    torch.manual_seed(0)
    lm = RecurrentLanguageModel(RecurrentConfig(cell, 8, 8), V, 2).double().eval()
    prompt = torch.tensor([5, 6, 7])
    greedy = generate_ids(lm, prompt, 6, EOS_ID, PAD_ID)
    beam = beam_search(RecurrentLanguageModelStep(lm), prompt[None], 1, 6, EOS_ID)
    assert greedy == [beam[0][0].tokens]
    ids = sample(RecurrentLanguageModelStep(lm), prompt[None], 6, EOS_ID, PAD_ID)
    recomputed = prompt.tolist()
    for _ in range(6):  # greedy by rerunning the whole sequence each step: the state carried is the same
        logits = lm(torch.tensor([recomputed]))[0, -1]
        logits[[PAD_ID, BOS_ID, EOS_ID]] = float("-inf")
        recomputed.append(int(logits.argmax()))
    assert ids[0].tolist() == recomputed[3:]
    sampled = generate_ids(lm, prompt, 6, EOS_ID, PAD_ID, num_samples=3, temperature=1.0,
                           generator=torch.Generator().manual_seed(1))  # fmt: skip
    assert len(sampled) == 3 and all(len(s) <= 6 for s in sampled)
    beams = generate_ids(lm, prompt, 6, EOS_ID, PAD_ID, num_samples=2, beam_size=3)
    assert len(beams) == 2 and beams[0] != beams[1]
