"""Ids that are never a training target (padding, <bos>; <eos> in a language model's stream of text) are never
decoded, whatever a barely trained model's logits say; the other ids keep the model's log-probabilities."""

import torch

from tests.nn.conftest import tiny_config
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.decoding import sample
from zoo.decoding.steps import DecoderOnlyStep, log_probabilities
from zoo.nn import DecoderOnly


def test_never_next_ids_get_minus_infinity_and_the_rest_keep_their_log_probabilities():
    logits = torch.tensor([[9.0, 8.0, 7.0, 0.5, -1.0, 2.0]])
    out = log_probabilities(logits)
    assert out[0, PAD_ID] == out[0, BOS_ID] == float("-inf")
    torch.testing.assert_close(out[0, 2:], torch.log_softmax(logits, -1)[0, 2:])


class PrefersSpecialIds(DecoderOnly):
    """A language model whose most likely next tokens are padding, <bos> and <eos>, by far."""

    def forward(self, *args, **kwargs):
        logits = super().forward(*args, **kwargs)
        logits[..., [PAD_ID, BOS_ID, EOS_ID]] += 100.0
        return logits


def test_a_language_model_that_prefers_special_ids_still_generates_text_to_the_limit():
    torch.manual_seed(0)
    model = PrefersSpecialIds(tiny_config(pe="learned"), 12, 1).eval()
    out = sample(DecoderOnlyStep(model), torch.tensor([[5, 6]]), 20, EOS_ID, PAD_ID, temperature=0.0)
    assert out.shape == (1, 20) and (out > EOS_ID).all()
