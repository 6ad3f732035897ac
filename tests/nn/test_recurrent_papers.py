"""The recurrent systems' defining choices: a classifier's pooling of the final states (Tai et al. 2015), the
reversed source (Sutskever et al. 2014, section 3.3) and input feeding (Luong et al. 2015, section 3.3)."""

import pytest
import torch

from zoo.nn import final_state_pooling, first_token_pooling
from zoo.nn.attention_maps import recorded_attention
from zoo.nn.recurrent import RecurrentConfig, RecurrentEncoderDecoder, RecurrentEncoderOnly
from zoo.nn.recurrent.config import LUONG
from zoo.nn.recurrent.encoder import reversal
from zoo.registry import RNN_CELLS

V = 23


def sentences(count=40, longest=9, seed=0):
    """``count`` right-padded rows of random ids (1 ... V-1) and lengths 1 ... ``longest``, and their mask."""
    generator = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, longest + 1, (count,), generator=generator)
    lengths[0] = longest
    ids = torch.randint(1, V, (count, longest), generator=generator)
    mask = torch.arange(longest)[None] >= lengths[:, None]
    return ids.masked_fill(mask, 0), mask


@pytest.mark.parametrize("cell", RNN_CELLS.names())
@pytest.mark.parametrize("bidirectional", [True, False])
def test_final_pooling_is_the_top_layers_h_n_of_torchs_layer(cell, bidirectional):
    torch.manual_seed(0)
    config = RecurrentConfig(cell=cell, d_embed=6, hidden_size=5, bidirectional=bidirectional)
    network = RecurrentEncoderOnly(config, V, num_layers=2).eval()
    tokens, mask = sentences()
    pooled = final_state_pooling(network(tokens, mask), mask, network.directions)
    rnn = network.encoder.rnn
    for row in range(tokens.shape[0]):  # each sentence alone, unpadded, through torch's nn.LSTM/GRU
        length = int((~mask[row]).sum())
        _, final = rnn(network.encoder.embedding(tokens[row : row + 1, :length]))
        h_n = final[0] if isinstance(final, tuple) else final
        expected = torch.cat(list(h_n[-network.directions :, 0]), dim=-1)  # [h_fwd_final; h_bwd_final]
        torch.testing.assert_close(pooled[row], expected, rtol=0, atol=1e-6)


def test_final_pooling_has_no_constant_unit_where_cls_has_nothing_else():
    """A unidirectional encoder's position 0 is the state after the first token alone: with every sentence
    starting with <bos> (id 1 here) the `cls` vector is one constant; the final states vary in every unit."""
    torch.manual_seed(0)
    network = RecurrentEncoderOnly(RecurrentConfig(d_embed=6, hidden_size=8, bidirectional=False), V).eval()
    tokens, mask = sentences(count=200)
    tokens[:, 0] = 1
    with torch.no_grad():
        states = network(tokens, mask)
        assert (first_token_pooling(states, mask).std(dim=0) == 0).all()
        assert (final_state_pooling(states, mask, network.directions).std(dim=0) > 1e-4).all()


def test_final_pooling_refuses_a_direction_count_that_does_not_fit():
    with pytest.raises(ValueError, match=r"^directions=2 is not valid for states of width 5; use 1 or 2$"):
        final_state_pooling(torch.zeros(1, 3, 5), None, directions=2)


def test_the_reversal_reads_the_words_backwards_and_keeps_the_end_token_and_padding():
    mask = torch.tensor([[False] * 5, [False, False, False, True, True], [False, True, True, True, True]])
    order = reversal(mask, (3, 5), "cpu")
    assert order.tolist() == [[3, 2, 1, 0, 4], [1, 0, 2, 3, 4], [0, 1, 2, 3, 4]]
    assert (order.gather(1, order) == torch.arange(5)).all()  # its own inverse
    assert reversal(None, (1, 4), "cpu").tolist() == [[2, 1, 0, 3]]


def translation_model(reverse: bool, attention="general", cell="lstm", bidirectional=False, feeding=False):
    torch.manual_seed(0)
    config = RecurrentConfig(
        cell=cell, d_embed=6, hidden_size=8, attention=attention, bidirectional=bidirectional,
        reverse_source=reverse, input_feeding=feeding,
    )  # fmt: skip
    return RecurrentEncoderDecoder(config, V, V, 2, 2).double().eval()


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("attention", ["none", "additive", "general"])
def test_a_reversed_source_is_the_same_model_fed_the_hand_reversed_sentence(attention, bidirectional):
    """The reversing encoder equals the plain one fed ``wn .. w1 <eos>``; its states, logits and alignment come
    back in reading order (the source axis of ``attention``'s figure)."""
    src, mask = sentences(count=6, longest=7)
    src = src.masked_fill(mask, 0)
    tgt = sentences(count=6, longest=5, seed=1)[0]
    reversing, plain = (
        translation_model(True, attention, bidirectional=bidirectional),
        translation_model(False, attention, bidirectional=bidirectional),
    )
    order = reversal(mask, tuple(src.shape), "cpu")
    by_hand = src.gather(1, order)
    with torch.no_grad(), recorded_attention(reversing) as weights, recorded_attention(plain) as plain_weights:
        logits = reversing(src, tgt, mask)
        torch.testing.assert_close(logits, plain(by_hand, tgt, mask), rtol=0, atol=1e-12)
        memory, memory_by_hand = reversing.encode(src, mask).memory, plain.encode(by_hand, mask).memory
    torch.testing.assert_close(memory, memory_by_hand.gather(1, order[..., None].expand_as(memory)))
    for name, value in weights.items():
        index = order[:, None, None, :].expand_as(value)
        torch.testing.assert_close(value, plain_weights[name].gather(-1, index), rtol=0, atol=1e-12)
    assert (attention == "none") == (not weights)
    assert not torch.equal(logits, plain(src, tgt, mask))  # the order read changes the model's output


@pytest.mark.parametrize("attention", LUONG)
def test_input_feeding_puts_step_ts_attentional_vector_into_step_t_plus_1s_input(attention):
    """Luong et al. 2015, section 3.3: step t+1's recurrent input is [e(y_t); h~_t], h~_t = tanh(W_c [c_t; h_t])
    the vector step t's output layer read; step 1 reads h~_0 = 0."""
    model = translation_model(False, attention, feeding=True)
    decoder = model.decoder
    src, mask = sentences(count=3, longest=6)
    tgt = sentences(count=3, longest=4, seed=2)[0]
    inputs, readouts = [], []
    hooks = [
        decoder.rnn.register_forward_hook(lambda _m, args, _out: inputs.append(args[0][:, 0])),
        decoder.output.register_forward_hook(lambda _m, args, _out: readouts.append(args[0][:, 0])),
    ]
    with torch.no_grad():
        logits = model(src, tgt, mask)
    for hook in hooks:
        hook.remove()
    hidden = decoder.rnn.hidden_size
    assert len(inputs) == tgt.shape[1] and inputs[0].shape[-1] == 6 + hidden
    assert (inputs[0][:, -hidden:] == 0).all()
    for t in range(1, tgt.shape[1]):
        torch.testing.assert_close(inputs[t][:, -hidden:], readouts[t - 1], rtol=0, atol=0)
        torch.testing.assert_close(inputs[t][:, :6], decoder.embedding(tgt[:, t]), rtol=0, atol=0)
    without = translation_model(False, attention, feeding=False)
    assert without.decoder.rnn.input_size == 6 and logits.shape == without(src, tgt, mask).shape
