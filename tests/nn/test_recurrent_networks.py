"""The recurrent networks: packing, padding, the decoder's two paths, teacher forcing, state carried over."""

import pytest
import torch

from zoo.nn.recurrent import (
    RecurrentConfig,
    RecurrentEncoderDecoder,
    RecurrentEncoderOnly,
    RecurrentLanguageModel,
    run_packed,
)
from zoo.registry import RNN_ATTENTIONS, RNN_CELLS

V = 19
ATTENTIONS = RNN_ATTENTIONS.names()


def config(cell="lstm", attention="additive", **overrides):
    knobs = dict(cell=cell, d_embed=6, hidden_size=8, dropout=0.0, attention=attention)
    return RecurrentConfig(**(knobs | overrides))


def model(cell, attention, layers=(2, 2), **overrides):
    torch.manual_seed(0)
    return RecurrentEncoderDecoder(config(cell, attention, **overrides), V, V, *layers).double().eval()


def source():
    src = torch.tensor([[3, 4, 5, 6, 7], [8, 9, 10, 0, 0], [11, 0, 0, 0, 0]])
    return src, src == 0


@pytest.mark.parametrize("cell", RNN_CELLS.names())
def test_packed_equals_unpacked_on_an_unpadded_batch(cell):
    torch.manual_seed(0)
    rnn = config(cell).layer(6, 2, bidirectional=True).double()
    x = torch.randn(3, 5, 6, dtype=torch.float64)
    packed_out, packed_final = run_packed(rnn, x, torch.zeros(3, 5, dtype=torch.bool))
    out, final = rnn(x)
    torch.testing.assert_close(packed_out, out, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(packed_final, final, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cell", RNN_CELLS.names())
def test_padding_never_enters_the_encoder_state(cell):
    network = model(cell, "additive")
    src, mask = source()
    encoded = network.encode(src, mask)
    alone = network.encode(src[1:2, :3], None)
    torch.testing.assert_close(encoded.memory[1:2, :3], alone.memory, rtol=1e-12, atol=1e-12)
    assert (encoded.memory[1, 3:] == 0).all()
    states = (state if isinstance(state, tuple) else (state,) for state in (encoded.final, alone.final))
    parts = zip(*states, strict=True)
    for part, part_alone in parts:
        torch.testing.assert_close(part[:, 1:2], part_alone, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cell", RNN_CELLS.names())
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_a_translation_is_the_same_with_its_batch_padding(cell, attention):
    network = model(cell, attention, input_feeding=attention in ("dot", "general", "concat"))
    src, mask = source()
    tgt = torch.tensor([[1, 4, 5, 6]] * 3)
    batched = network(src, tgt, mask)
    for row, length in enumerate((5, 3, 1)):
        alone = network(src[row : row + 1, :length], tgt[row : row + 1])
        torch.testing.assert_close(batched[row : row + 1], alone, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("cell", RNN_CELLS.names())
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_the_whole_sequence_equals_one_step_at_a_time(cell, attention):
    network = model(cell, attention, layers=(2, 1))
    src, mask = source()
    tgt = torch.tensor([[1, 4, 5, 6], [1, 7, 8, 0], [1, 2, 0, 0]])
    whole = network(src, tgt, mask)
    source_, state = network.decoder.start(network.encode(src, mask))
    for t in range(tgt.shape[1]):
        logits, state = network.decoder.step(tgt[:, t], source_, state)
        torch.testing.assert_close(logits, whole[:, t], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("attention", ["additive", "dot"])
def test_without_teacher_forcing_a_step_reads_only_its_own_predictions(attention):
    network = model("gru", attention)
    network.teacher_forcing = 0.0
    network.train()  # dropout is 0: training differs only in what each step reads
    src, mask = source()
    tgt = torch.tensor([[1, 4, 5, 6]] * 3)
    other = tgt.clone()
    other[:, 1:] = 9
    torch.testing.assert_close(network(src, tgt, mask), network(src, other, mask), rtol=0, atol=0)
    network.teacher_forcing = 1.0
    assert not torch.equal(network(src, tgt, mask), network(src, other, mask))


def test_input_feeding_needs_luong_attention():
    with pytest.raises(ValueError, match=r"^model.input_feeding=true feeds Luong .*model.rnn_attention='additive'"):
        model("lstm", "additive", input_feeding=True)


@pytest.mark.parametrize("cell", RNN_CELLS.names())
def test_the_language_model_continues_from_its_state(cell):
    torch.manual_seed(0)
    lm = RecurrentLanguageModel(config(cell, hidden_size=6), V, 2).double().eval()
    tokens = torch.randint(1, V, (2, 7))
    whole = lm(tokens)
    first, state = lm.run(tokens[:, :4])
    rest, _ = lm.run(tokens[:, 4:], state)
    torch.testing.assert_close(torch.cat([first, rest], 1), whole, rtol=1e-12, atol=1e-12)
    assert lm.output.weight is lm.embedding.weight


def test_a_tied_language_model_needs_equal_widths():
    with pytest.raises(ValueError, match=r"^model.tie_embeddings=true needs model.rnn_hidden equal to model.d_model=6"):
        RecurrentLanguageModel(config(), V, 1)


def test_the_classifier_encoder_states_are_zero_at_padding():
    encoder = RecurrentEncoderOnly(config(), V, 2)
    src, mask = source()
    states = encoder(src, mask)
    assert states.shape == (3, 5, 16) and (states[2, 1:] == 0).all() and encoder.output_size == 16
