"""The parity of tests/weights/test_parity.py at the real shapes of GPT-2 small, BERT base and Helsinki-NLP's
opus-mt-de-en (their published ``config.json``, written here: no hub), with random weights: zoo's float32
outputs equal the ``transformers`` forward pass on real text with padding in the batch. The special ids are
zoo's (0 padding, 1 start, 2 end), as in the small tests; the checkpoints' own ids are moved there by ``import``
(tests/weights/test_import_export.py), which changes no shape."""

import pytest
import torch
import transformers

from tests.weights.helpers import BOS, EOS, PAD, encode, lines, perturbed, saved
from tests.weights.test_parity import assert_equal_where_real, assert_translation_logits_equal
from zoo.weights.convert import import_source

SPECIALS = {"pad_token_id": PAD, "bos_token_id": BOS, "eos_token_id": EOS}

# GPT-2 small (openai-community/gpt2's config.json): 124M parameters
GPT2_SMALL = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12, layer_norm_epsilon=1e-5)
# BERT base (google-bert/bert-base-uncased's config.json): 110M parameters
BERT_BASE = dict(
    vocab_size=30522,
    hidden_size=768,
    num_hidden_layers=12,
    num_attention_heads=12,
    intermediate_size=3072,
    hidden_act="gelu",
    max_position_embeddings=512,
    type_vocab_size=2,
    layer_norm_eps=1e-12,
)
# Helsinki-NLP/opus-mt-de-en's config.json: 74M parameters
OPUS_MT_DE_EN = dict(
    vocab_size=58101,
    d_model=512,
    encoder_layers=6,
    decoder_layers=6,
    encoder_attention_heads=8,
    decoder_attention_heads=8,
    encoder_ffn_dim=2048,
    decoder_ffn_dim=2048,
    max_position_embeddings=512,
    activation_function="swish",
    scale_embedding=True,
    static_position_embeddings=True,
    share_encoder_decoder_embeddings=True,
    decoder_start_token_id=BOS,
    forced_eos_token_id=None,
)


def published(folder, model_class, config_class, shape: dict, **kwargs):
    torch.manual_seed(0)
    return saved(perturbed(model_class(config_class(**shape, **SPECIALS), **kwargs), 0), folder)


def assert_outputs_equal(hf, network, texts: list[str], key: str, end: list[int]) -> None:
    """zoo's and ``hf``'s outputs (``key``: logits, hidden states) on ``texts``, equal where real."""
    ids, mask = encode(texts, start=[BOS], end=end)
    with torch.no_grad():
        theirs = getattr(hf(input_ids=ids, attention_mask=(~mask).long()), key)
        ours = network.eval()(ids, mask)
    assert mask.any()
    assert_equal_where_real(ours, theirs, mask)


@pytest.mark.slow
def test_gpt2_small_logits_equal_transformers(tmp_path):
    hf = published(tmp_path, transformers.GPT2LMHeadModel, transformers.GPT2Config, GPT2_SMALL)
    network, knobs, _ = import_source(str(tmp_path))
    assert (knobs["d_model"], knobs["n_heads"], knobs["vocab_size"]) == (768, 12, 50257)
    assert_outputs_equal(hf, network, [line[:300] for line in lines("wikitext2", 4)], "logits", [])


@pytest.mark.slow
def test_bert_base_hidden_states_equal_transformers(tmp_path):
    hf = published(tmp_path, transformers.BertModel, transformers.BertConfig, BERT_BASE, add_pooling_layer=False)
    network, knobs, _ = import_source(str(tmp_path))
    assert (knobs["d_model"], knobs["n_heads"], knobs["d_ff"]) == (768, 12, 3072)
    assert_outputs_equal(hf, network, lines("sst2", 4, "sentence"), "last_hidden_state", [EOS])


@pytest.mark.slow
def test_opus_mt_de_en_logits_equal_transformers(tmp_path):
    hf = published(tmp_path, transformers.MarianMTModel, transformers.MarianConfig, OPUS_MT_DE_EN)
    network, knobs, _ = import_source(str(tmp_path))
    assert (knobs["d_model"], knobs["n_heads"], knobs["vocab_size"]) == (512, 8, 58101)
    assert_translation_logits_equal(hf, network, 4)
