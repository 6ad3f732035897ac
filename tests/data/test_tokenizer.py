"""Tokenizers: special tokens at their documented ids, lossless round trips, and no special id from raw text."""

import pytest

from zoo.data.loading import load_splits
from zoo.data.tokenizer import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    SPECIAL_TOKENS,
    UNK_ID,
    load_tokenizer,
    train_tokenizer,
)
from zoo.registry import TOKENIZERS
from zoo.tasks.corpus_scores import CorpusScores

TEXTS = ["Zwei junge weiße Männer sind im Freien.", "A man in an orange hat starring at something."] * 20
# BERT's decoder turned these into "woman ' s" and "dirt - bikes"; spaces, tabs and line breaks must survive too
HARD = "A woman's shoulders, two dirt-bikes (one four-wheeler)!\n  two  spaces\tand a tab ## x"
LITERAL_SPECIALS = "a " + " b ".join(SPECIAL_TOKENS) + " c"  # "a <pad> b <bos> b <eos> b <unk> c"


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_special_tokens_have_fixed_ids(kind):
    tokenizer = train_tokenizer(kind, TEXTS, 300)
    assert [tokenizer.token_to_id(t) for t in SPECIAL_TOKENS] == [PAD_ID, BOS_ID, EOS_ID, UNK_ID] == [0, 1, 2, 3]


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_round_trip_is_lossless(kind):
    tokenizer = train_tokenizer(kind, TEXTS + [HARD], 300)
    for text in TEXTS[:2] + [HARD]:
        assert tokenizer.decode(tokenizer.encode(text).ids) == text


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_literal_special_tokens_are_ordinary_text(kind):
    tokenizer = train_tokenizer(kind, TEXTS + [LITERAL_SPECIALS], 300)
    for loaded in (tokenizer, load_tokenizer(tokenizer.to_str())):  # as from the cache or a checkpoint
        ids = loaded.encode(LITERAL_SPECIALS).ids
        assert not set(ids) & {PAD_ID, BOS_ID, EOS_ID, UNK_ID}, loaded.encode(LITERAL_SPECIALS).tokens
        assert loaded.decode(ids) == LITERAL_SPECIALS


@pytest.fixture(scope="module")
def multi30k(data_dir):
    return load_splits(str(data_dir / "multi30k"), ["train", "validation"])


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_decoded_references_score_bleu_100_on_multi30k(kind, multi30k):
    """What BLEU compares: detokenised target ids (a perfect model's output) with the reference text."""
    train, references = multi30k["train"], list(multi30k["validation"]["en"])
    tokenizer = train_tokenizer(kind, list(train["de"]) + list(train["en"]), 2000)  # joint, as the data module
    decoded = tokenizer.decode_batch([e.ids for e in tokenizer.encode_batch(references)])
    assert len(decoded) == 1014
    assert [d for d, r in zip(decoded, references, strict=True) if d != r] == []
    scores = CorpusScores()  # the BLEU that validation and test log
    scores.update(decoded, references)
    assert scores.compute()[0] == pytest.approx(100.0)


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_training_on_the_same_text_gives_the_same_tokenizer(kind, multi30k):
    """The library's WordPiece trainer numbered its continuing pieces in a hash map's order and broke ties
    between merges by those numbers: three trainings on Multi30k gave three tokenizers (other ids, other
    tokens), so one configuration and seed trained other models on two machines."""
    texts = list(multi30k["train"]["en"])[:4000]  # enough: before, three trainings gave three tokenizers
    assert len({train_tokenizer(kind, texts, 1000).to_str() for _ in range(3)}) == 1


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


def test_a_wordpiece_word_is_one_token_wherever_it_stands():
    """The first word of a text carries its space as every other word does, and punctuation carries its own:
    without that (every first word split into pieces, a lone ``▁`` before each comma as the most frequent
    token) SST-2 accuracy fell by 6 points."""
    texts = ["good movie , good plot .", "a good one , really good .", "movie night"] * 30
    tokenizer = train_tokenizer("wordpiece", texts, 60)
    first, inner = tokenizer.encode("good movie").tokens, tokenizer.encode("a good movie").tokens
    assert first == ["▁good", "▁movie"] and inner[1:] == first
    tokens = tokenizer.encode("good movie , good plot .").tokens
    assert "▁" not in tokens and "▁," in tokens and "▁." in tokens
