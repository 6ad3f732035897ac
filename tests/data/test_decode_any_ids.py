"""Every tokenizer decodes any id sequence without its markup (``##``, ``▁``, ``Ġ``, broken bytes as U+FFFD): one
that starts or ends inside a word or a character, one of continuation pieces only, with special tokens or
padding, an empty one; and the BLEU path (a translation's hypotheses) gets such text.

WordPiece decoded ``'##s A dog'``: 60 of 1,120 Multi30k hypotheses reached BLEU with a literal ``##``.
"""

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from tokenizers import decoders

from zoo.data.detokenize import BYTE_OF, decode, decode_batch
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIAL_TOKENS, UNK_ID, load_tokenizer, train_tokenizer
from zoo.decoding.beam import Hypothesis
from zoo.registry import TOKENIZERS
from zoo.tasks.translation import TranslationTask

MARKUP = ("##", "▁", "Ġ", "\ufffd", "</w>", *SPECIAL_TOKENS)
SPECIAL_IDS = [PAD_ID, BOS_ID, EOS_ID, UNK_ID]
TEXT = "Zwei Hunde laufen über die Wiese"


@pytest.fixture(scope="module")
def german(data_dir) -> list[str]:
    with open(Path(data_dir) / "multi30k" / "train.jsonl", encoding="utf-8") as rows:
        return [json.loads(row)["de"] for row in rows][:1500]


@pytest.fixture(scope="module")
def trained(german) -> dict:
    """Each kind trained on real German text (umlauts: two bytes a character)."""
    return {kind: train_tokenizer(kind, german, 600) for kind in TOKENIZERS.names()}


@pytest.fixture(scope="module", params=["multi30k", "wikitext2"])
def corpus(request, data_dir, german, trained) -> tuple[list[str], dict]:
    """Real training text (German sentences; English Wikipedia lines with their line breaks, and ``<unk>`` as
    text) and each kind trained on it."""
    if request.param == "multi30k":
        return german, trained
    text = (Path(data_dir) / "wikitext2" / "train.txt").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines(keepends=True) if line.strip()][:1500]
    return lines, {kind: train_tokenizer(kind, lines, 600) for kind in TOKENIZERS.names()}


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_every_cut_of_an_encoding_decodes_to_a_cut_of_the_text(kind, corpus):
    """A suffix of the ids decodes to a suffix of the text, a prefix to a prefix, a middle to a substring: the
    markup of a cut word or character never shows."""
    lines, trained = corpus
    tokenizer = trained[kind]
    for text in [line for line in lines if len(line) < 200][-40:]:  # of the training text: every character seen
        ids = tokenizer.encode(text).ids
        assert decode(tokenizer, ids) == text
        for k in range(len(ids) + 1):
            head, tail = decode(tokenizer, ids[:k]), decode(tokenizer, ids[k:])
            assert text.startswith(head) and text.endswith(tail), (text, k, head, tail)
            assert decode(tokenizer, ids[k : k + 3]) in text


def test_wordpiece_drops_the_mark_of_a_first_continuation_piece(trained):
    tokenizer = trained["wordpiece"]
    ids = tokenizer.encode("Hunde laufen").ids
    pieces = [tokenizer.id_to_token(i) for i in ids]
    assert pieces[1].startswith("##")  # "▁Hund", "##e", ...: the hypothesis of the bug report
    assert decode(tokenizer, ids[1:]) == "e laufen" == tokenizer.decode(ids[1:])
    assert load_tokenizer(tokenizer.to_str()).decode(ids[1:]) == "e laufen"  # as a cache or checkpoint loads it


def test_a_wordpiece_tokenizer_saved_with_the_old_decoder_loads_with_the_new_one():
    tokenizer = train_tokenizer("wordpiece", ["Hunde laufen", "Hund"], 40)
    tokenizer.decoder = decoders.Sequence([decoders.WordPiece(cleanup=False), decoders.Replace(" ", "")])
    ids = [tokenizer.token_to_id("##e"), tokenizer.token_to_id("▁l")]
    assert tokenizer.decode(ids) == "##e▁l"  # what a cache entry or checkpoint of before held
    assert load_tokenizer(tokenizer.to_str()).decode(ids) == "e l"


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_random_id_sequences_decode_without_markup(kind, corpus):
    """Random ids, continuation pieces only, special tokens anywhere, ids past the vocabulary, empty: no markup
    that the training text does not hold itself (Wikitext has ``<unk>`` as text)."""
    lines, trained = corpus
    tokenizer, seen = trained[kind], set("".join(lines))
    marks = [mark for mark in MARKUP if mark not in "".join(lines)]
    assert "##" in marks and "\ufffd" in marks
    size, generator = tokenizer.get_vocab_size(), random.Random(0)
    continuing = [i for token, i in tokenizer.get_vocab().items() if token.startswith("##")]
    sequences = [[], SPECIAL_IDS, [PAD_ID] * 5, continuing[:20]]
    sequences += [[generator.randrange(size + 3) for _ in range(generator.randrange(1, 25))] for _ in range(400)]
    texts = decode_batch(tokenizer, sequences)
    for ids, text in zip(sequences, texts, strict=True):
        assert not any(mark in text for mark in marks), (ids, text)
        if kind != "bpe":  # byte-level tokens may join into any character; the others' are the training text's
            assert set(text) <= seen, (ids, text)
        without = [i for i in ids if i not in SPECIAL_IDS]
        assert text == decode(tokenizer, without)  # a special token between two bytes of one character
        assert decode(tokenizer, [PAD_ID, *ids, EOS_ID, PAD_ID]) == text


def test_byte_level_text_is_the_library_text_without_its_replacement_characters(trained):
    """The library's own decoding (``from_utf8_lossy``) is the reference: the same text, but that it puts U+FFFD
    where bytes form no character, which the training text never held."""
    tokenizer, generator = trained["bpe"], random.Random(1)
    sequences = [[generator.randrange(4, tokenizer.get_vocab_size()) for _ in range(30)] for _ in range(300)]
    library = tokenizer.decode_batch(sequences)
    assert sum("\ufffd" in text for text in library) > 100  # the cases exist
    assert decode_batch(tokenizer, sequences) == [text.replace("\ufffd", "") for text in library]
    assert decode(tokenizer, tokenizer.encode("a \ufffd b").ids) == "a \ufffd b"  # a whole one stays


def test_the_byte_map_is_the_library_one():
    byte_level = decoders.ByteLevel()
    assert len(BYTE_OF) == 256 and sorted(BYTE_OF.values()) == list(range(256))
    assert all(byte_level.decode([char]) == chr(byte) for char, byte in BYTE_OF.items() if byte < 128)


@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_bleu_path_gets_hypotheses_without_markup(kind, trained):
    """``TranslationTask.translate`` (what validation BLEU, test and predict score) given hypotheses that begin
    and end inside a word, as a model can emit them."""
    tokenizer = trained[kind]
    ids = tokenizer.encode(TEXT).ids
    cut = [tokenizer.token_to_id(piece) for piece in {"bpe": ["¼"], "wordpiece": ["##e"]}.get(kind, [])]
    found = [[Hypothesis(ids[k : len(ids) - 1], 0.0, 0.0, True)] for k in (1, 2, 3)]
    found.append([Hypothesis(cut + ids, 0.0, 0.0, True)])
    task = SimpleNamespace(
        hypotheses=lambda src, mask: found,
        trainer=SimpleNamespace(datamodule=SimpleNamespace(target_tokenizer=tokenizer)),
    )
    texts = TranslationTask.translate(task, torch.zeros(4, 1), torch.zeros(4, 1, dtype=torch.bool))
    assert all(text and text in TEXT for text in texts[:3]), texts
    assert texts[3] == {"wordpiece": f"e {TEXT}"}.get(kind, TEXT)  # "##e" and the second byte of "ü" without marks


def test_no_module_decodes_ids_but_through_detokenize():
    """The sibling call sites (translation, predictions, translate and generate commands) all go through
    :func:`zoo.data.detokenize.decode_batch`."""
    package = Path(__file__).resolve().parents[2] / "zoo"
    callers = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if ".decode_batch(" in path.read_text(encoding="utf-8") and path.name != "detokenize.py"
    ]
    assert callers == []
