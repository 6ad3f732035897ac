"""``vocab_multiple`` pads the embedding and output matrices (GPT-2's 50257 rows to 50304, as nanoGPT): the
padded network computes exactly what the unpadded one does, its padding rows are never predicted nor in the
loss, and the parameter count is the unpadded one's."""

import pytest
import torch
import torch.nn.functional as F

from tests.decoding.conftest import PAD
from tests.nn.conftest import tiny_config
from zoo.decoding import generate_ids
from zoo.nn import DecoderOnly, EncoderDecoder, count_parameters

VOCAB = 37  # 37 -> 64 with vocab_multiple=64


def padded_copy(model_class, *args, **kwargs):
    """An unpadded model and a padded one whose first ``VOCAB`` rows (and every other weight) are the same."""
    torch.manual_seed(0)
    plain = model_class(tiny_config(), *args, **kwargs).double().eval()
    torch.manual_seed(0)
    padded = model_class(tiny_config(vocab_multiple=64), *args, **kwargs).double().eval()
    state = padded.state_dict()
    for name, value in plain.state_dict().items():
        state[name][: value.shape[0]] = value  # the padding rows keep their random values
    padded.load_state_dict(state)
    return plain, padded


@pytest.mark.parametrize("tie_embeddings", [True, False])
def test_a_padded_language_model_computes_the_same_logits_loss_and_count(tie_embeddings):
    plain, padded = padded_copy(DecoderOnly, VOCAB, 2, tie_embeddings=tie_embeddings)
    assert padded.embed.tokens.weight.shape[0] == padded.output.linear.weight.shape[0] == 64
    tokens = torch.randint(1, VOCAB, (3, 9))
    logits = padded(tokens)
    assert logits.shape == (3, 9, VOCAB)  # the padding logits are cut off: no loss or decoder sees them
    torch.testing.assert_close(logits, plain(tokens))
    loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), tokens[:, 1:].flatten())
    loss.backward()
    assert padded.output.linear.weight.grad[VOCAB:].abs().sum() == 0  # never in the loss: no gradient
    assert count_parameters(padded) == count_parameters(plain)
    assert sum(p.numel() for p in padded.parameters()) > count_parameters(padded)


def test_decoding_never_emits_a_padding_id():
    plain, padded = padded_copy(DecoderOnly, VOCAB, 2)
    with torch.no_grad():  # make the padding rows the likeliest by far, were they ever scored
        padded.output.linear.weight[VOCAB:] = 100 * padded.output.linear.weight[:VOCAB].abs().max()
    prompt = torch.tensor([4, 9, 11, 5])
    emitted = generate_ids(padded, prompt, 12, eos_id=-1, pad_id=PAD)[0]
    assert emitted == generate_ids(plain, prompt, 12, eos_id=-1, pad_id=PAD)[0]
    assert max(emitted) < VOCAB


def test_a_padded_encoder_decoder_computes_the_same_logits_and_count():
    plain, padded = padded_copy(EncoderDecoder, VOCAB, VOCAB, 1, 1)
    src, tgt = torch.randint(1, VOCAB, (2, 7)), torch.randint(1, VOCAB, (2, 5))
    torch.testing.assert_close(padded(src, tgt), plain(src, tgt))
    assert count_parameters(padded) == count_parameters(plain)


@pytest.mark.parametrize("bad", [0, -64, 1.5])
def test_a_bad_vocab_multiple_is_refused_naming_the_field(bad):
    with pytest.raises(
        ValueError, match=rf"^model.vocab_multiple={bad!r} is not valid; it must be a positive integer$"
    ):
        tiny_config(vocab_multiple=bad)
