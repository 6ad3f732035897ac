"""A checkpoint's ids in zoo's order (<pad> 0, <bos> 1, <eos> 2, <unk> 3): each family's special tokens, and
the extra rows of the roles a checkpoint shares or lacks."""

import json

import torch

from zoo.weights.vocabulary import EXTRA_LOGIT, Vocabulary, permuted_tokenizer, tokenizer_roles


def test_distinct_roles_are_a_permutation_without_extra_rows():
    # BERT: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102
    vocabulary = Vocabulary.of({"pad_id": 0, "bos_id": 101, "eos_id": 102, "unk_id": 100}, 110)
    assert vocabulary.rows[:6] == [0, 101, 102, 100, 1, 2] and vocabulary.extra == []
    assert sorted(vocabulary.rows) == list(range(110))


def test_gpt2s_one_end_of_text_token_ends_texts_and_a_copy_starts_them():
    vocabulary = Vocabulary.of({"pad_id": None, "bos_id": 50256, "eos_id": 50256, "unk_id": None}, 50257)
    assert vocabulary.rows[:5] == [-1, 50256, 50256, -1, 0] and vocabulary.extra == [0, 1, 3]
    assert vocabulary.size == 50257 + 3
    table = torch.arange(50257.0)[:, None].expand(-1, 2)
    rows = vocabulary.rows_of(table)
    assert rows[0].tolist() == [0, 0] and rows[1].tolist() == [50256] * 2 and rows[2].tolist() == [50256] * 2
    assert rows[4].tolist() == [0, 0] and rows[-1].tolist() == [50255] * 2
    bias = vocabulary.logits_bias(None)
    assert bias[[0, 1, 3]].tolist() == [EXTRA_LOGIT] * 3 and not bias[[2, 4, -1]].any()


def test_marians_start_token_is_a_copy_of_its_padding():
    # opus-mt: </s> 0, <unk> 1, <pad> 58100 = decoder_start_token_id
    vocabulary = Vocabulary.of({"pad_id": 58100, "bos_id": 58100, "eos_id": 0, "unk_id": 1}, 58101)
    assert vocabulary.rows[:5] == [58100, 58100, 0, 1, 2] and vocabulary.extra == [1]
    bias = vocabulary.logits_bias(torch.arange(58101.0))
    assert bias[0] == 58100 and bias[1] == EXTRA_LOGIT and bias[2] == 0 and bias[4] == 2


def test_the_tokenizer_keeps_every_token_text_under_its_new_id():
    from tokenizers import Tokenizer, models

    vocab = {"[PAD]": 0, "a": 1, "b": 2, "[UNK]": 3, "[CLS]": 4, "[SEP]": 5}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    text = tokenizer.to_str()
    roles = tokenizer_roles(json.loads(text), {"pad_id": 0})
    assert roles == {"pad_id": 0, "bos_id": 4, "eos_id": 5, "unk_id": 3}
    vocabulary = Vocabulary.of(roles, 6)
    ours = Tokenizer.from_str(permuted_tokenizer(text, vocabulary))
    assert [ours.id_to_token(i) for i in range(6)] == ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "a", "b"]
