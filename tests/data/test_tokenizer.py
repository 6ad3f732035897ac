"""Tokenizers: special tokens at their documented ids, lossless round trips."""

import pytest

from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIAL_TOKENS, TOKENIZERS, UNK_ID, train_tokenizer

TEXTS = ["Zwei junge weiße Männer sind im Freien.", "A man in an orange hat starring at something."] * 20


@pytest.mark.parametrize("kind", TOKENIZERS)
def test_special_tokens_have_fixed_ids(kind):
    tokenizer = train_tokenizer(kind, TEXTS, 300)
    assert [tokenizer.token_to_id(t) for t in SPECIAL_TOKENS] == [PAD_ID, BOS_ID, EOS_ID, UNK_ID] == [0, 1, 2, 3]


@pytest.mark.parametrize("kind", ["bpe", "char"])
def test_round_trip_is_lossless(kind):
    extra = ["\n  two  spaces\n"]
    tokenizer = train_tokenizer(kind, TEXTS + extra, 300)
    for text in TEXTS[:2] + extra:
        assert tokenizer.decode(tokenizer.encode(text).ids) == text


def test_char_vocabulary_is_the_characters_plus_specials():
    tokenizer = train_tokenizer("char", ["abca", "b\n"], 0)
    assert tokenizer.get_vocab_size() == len(SPECIAL_TOKENS) + 4


def test_bad_kind_and_size():
    with pytest.raises(
        ValueError, match=r"data.tokenizer='spm' is not valid; choose one of: 'bpe', 'wordpiece', 'char'"
    ):
        train_tokenizer("spm", TEXTS, 300)
    with pytest.raises(ValueError, match=r"data.vocab_size=3 is not valid"):
        train_tokenizer("bpe", TEXTS, 3)
