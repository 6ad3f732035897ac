"""Hugging Face checkpoints in zoo's backbones: for GPT-2, BERT, Llama with grouped-query attention and Marian, a
small randomly initialised ``transformers`` model saved with ``save_pretrained`` is imported, and zoo's logits
equal its forward pass (max abs difference <= 1e-5, float32) on real text with padding in the batch; zoo's greedy
decoding (zoo.decoding, with its cache) equals ``generate`` token for token."""

import pytest
import torch
import transformers

from tests.weights import helpers
from tests.weights.helpers import BOS, EOS, PAD, encode, lines, tokenizer_json
from zoo.decoding import translate_ids
from zoo.decoding.sequences import generate_ids
from zoo.weights.convert import import_source
from zoo.weights.errors import WeightsError
from zoo.weights.export import main as export_main
from zoo.weights.importer import main as import_main

TOLERANCE = 1e-5


def assert_equal_where_real(ours: torch.Tensor, theirs: torch.Tensor, mask: torch.Tensor) -> None:
    """Equal at the real (non-padding) positions, and not trivially small (a wrong mapping would show)."""
    real = ~mask
    assert theirs[real].std() > 0.1
    assert (ours[real] - theirs[real]).abs().max().item() <= TOLERANCE


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_decoder_logits_equal_transformers_on_real_text_with_padding(tmp_path, family):
    hf = getattr(helpers, family)(tmp_path)
    network, knobs, _ = import_source(str(tmp_path))
    ids, mask = encode(lines("tinyshakespeare", 6), start=[BOS])
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=(~mask).long()).logits
        ours = network.eval()(ids, mask)
    assert mask.any() and ids.shape[1] > 30
    assert_equal_where_real(ours, theirs, mask)


def test_llama_keeps_its_grouped_query_attention(tmp_path):
    helpers.llama(tmp_path)
    network, knobs, _ = import_source(str(tmp_path))
    assert (knobs["n_heads"], knobs["n_kv_heads"]) == (8, 2)
    assert network.decoder.layers[0].self_attn.in_proj.weight.shape == (64 + 2 * 2 * 8, 64)


def test_llama_3s_rope_base_is_kept_in_logits_and_on_export(tmp_path, capsys):
    """Llama 3's rope_theta 500000 is ``model.rope_theta``: the logits equal with it (with zoo's default 10000 they
    would not), and an export writes it back."""
    hf = helpers.llama(tmp_path / "hf", seed=2, rope_theta=500000.0)
    tokenizer_json(tmp_path / "hf")
    network, knobs, _ = import_source(str(tmp_path / "hf"))
    assert knobs["rope_theta"] == 500000.0 and network.embed.rotary.theta == 500000.0
    ids, mask = encode(lines("tinyshakespeare", 4), start=[BOS])
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=(~mask).long()).logits
        assert_equal_where_real(network.eval()(ids, mask), theirs, mask)
        helpers.llama(tmp_path / "base", seed=2)  # the same weights, rope_theta 10000
        default, _, _ = import_source(str(tmp_path / "base"))
        assert (default.eval()(ids, mask) - theirs)[~mask].abs().max() > 1e-3
    assert import_main([str(tmp_path / "hf"), "--out", str(tmp_path / "run")]) == 0
    ckpt = str(tmp_path / "run" / "checkpoints" / "imported.ckpt")
    assert export_main(["--ckpt_path", ckpt, "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert transformers.AutoConfig.from_pretrained(tmp_path / "out").rope_parameters["rope_theta"] == 500000.0


def test_a_rope_scaling_zoo_does_not_have_is_refused(tmp_path):
    scaling = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 128}  # fmt: skip
    helpers.llama(tmp_path, rope_parameters=scaling)
    with pytest.raises(WeightsError, match=r"^config.json's rope_type='llama3' has no zoo counterpart"):
        import_source(str(tmp_path))


def test_tied_llama_loads_its_one_embedding(tmp_path):
    hf = helpers.llama(tmp_path, seed=1, tie=True)
    network, knobs, _ = import_source(str(tmp_path))
    assert knobs["tie_embeddings"] and network.output.linear.weight is network.embed.tokens.weight
    ids, mask = encode(lines("tinyshakespeare", 3), start=[BOS])
    with torch.no_grad():
        assert_equal_where_real(
            network.eval()(ids, mask), hf(input_ids=ids, attention_mask=(~mask).long()).logits, mask
        )


def test_bert_hidden_states_equal_transformers_on_real_text_with_padding(tmp_path):
    hf = helpers.bert(tmp_path)
    network, knobs, _ = import_source(str(tmp_path))
    ids, mask = encode(lines("sst2", 6, "sentence"), start=[BOS], end=[EOS])
    with torch.no_grad():
        theirs = hf(input_ids=ids, attention_mask=(~mask).long()).last_hidden_state
        ours = network.eval()(ids, mask)
    assert mask.any() and knobs["token_types"] == 2 and knobs["norm_eps"] == 1e-12
    assert_equal_where_real(ours, theirs, mask)


def assert_translation_logits_equal(hf, network, count: int) -> None:
    """zoo's and ``hf``'s logits on ``count`` Multi30k pairs (German to English), equal where real."""
    src, src_mask = encode(lines("multi30k", count, "de"), end=[EOS])
    tgt, tgt_mask = encode(lines("multi30k", count, "en"), start=[BOS])
    with torch.no_grad():
        theirs = hf(
            input_ids=src,
            attention_mask=(~src_mask).long(),
            decoder_input_ids=tgt,
            decoder_attention_mask=(~tgt_mask).long(),
        ).logits
        ours = network.eval()(src, tgt, src_mask, tgt_mask)
    assert src_mask.any() and tgt_mask.any()
    assert_equal_where_real(ours, theirs, tgt_mask)


def test_marian_logits_equal_transformers_on_real_text_with_padding(tmp_path):
    hf = helpers.marian(tmp_path)
    network, knobs, _ = import_source(str(tmp_path))
    assert knobs["pe"] == "sinusoidal_concat"
    assert_translation_logits_equal(hf, network, 6)


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_greedy_generation_equals_transformers_generate(tmp_path, family):
    hf = getattr(helpers, family)(tmp_path, seed=2)
    network, _, _ = import_source(str(tmp_path))
    for text in lines("tinyshakespeare", 3):
        prompt, _ = encode([text[:30]], start=[BOS])
        ours = generate_ids(network.eval(), prompt[0], 24, EOS, PAD)[0]
        # zoo's language model never continues with padding, <bos> or <eos> (zoo.decoding.steps); nor does this
        theirs = hf.generate(
            prompt,
            attention_mask=torch.ones_like(prompt),
            max_new_tokens=24,
            do_sample=False,
            num_beams=1,
            bad_words_ids=[[PAD], [BOS], [EOS]],
            pad_token_id=PAD,
        )[0, prompt.shape[1] :].tolist()
        assert ours == theirs and len(ours) == 24


def test_greedy_translation_equals_transformers_generate(tmp_path):
    hf = helpers.marian(tmp_path, seed=3)
    network, _, _ = import_source(str(tmp_path))
    src, mask = encode(lines("multi30k", 4, "de"), end=[EOS])
    limit = torch.full((4,), 20)
    ours = [found[0].tokens for found in translate_ids(network.eval(), src, mask, BOS, EOS, PAD, limit)]
    # zoo's translations never continue with padding or <bos> (zoo.decoding.steps.NEVER_NEXT); nor do these
    generated = hf.generate(
        src,
        attention_mask=(~mask).long(),
        max_new_tokens=20,
        do_sample=False,
        num_beams=1,
        bad_words_ids=[[PAD], [BOS]],
        forced_eos_token_id=None,
    )[:, 1:].tolist()
    theirs = [row[: row.index(EOS)] if EOS in row else row for row in generated]
    assert ours == theirs and sum(map(len, ours)) > 20
