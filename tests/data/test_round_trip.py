"""Every tokenizer gives the text back but for the characters it never saw, each of which is ``<unk>`` alone.

Property-style: real lines of every data set, lines of another data set (other letters), the edge cases of
whitespace and unseen characters, and random strings of known, unknown and whitespace characters.
"""

import json
import random

import pytest

from zoo.data.tokenizer import SPACE, UNK, train_tokenizer
from zoo.registry import TOKENIZERS

TRAIN_LINES, CHECKED_LINES = 1500, 300
EDGES = [
    "",
    " ",
    "   ",
    " a leading space",
    "a trailing space ",
    "  two  spaces  between  ",
    "\ttabs\tand\ttabs\t",
    "\n",
    "line\n\nbreaks\n",
    " \t\n mixed \r\n",
    "a" * 250,
    "dog" + "s" * 120 + " and a long word",
    "seen letters with one unseen € inside: w€rd",
    "€ first, last €",
    "C## and F# and ### and #",
    "<unk> and <pad> as text",
]


def _lines(data_dir, name: str, split: str) -> list[str]:
    """Lines of a data set as its data module reads them: JSON rows' text, text files with their line breaks."""
    folder = data_dir / name
    if (folder / f"{split}.txt").exists():
        return (folder / f"{split}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    column = {"multi30k": "de", "sst2": "sentence"}[name]
    with open(folder / f"{split}.jsonl", encoding="utf-8") as rows:
        return [json.loads(row)[column] for row in rows]


def _random_texts(seen: set[str], count: int = 300) -> list[str]:
    pool = sorted(seen)[:60] + [" ", " ", "\t", "\n", "#", "€", "ß", "漢", "\u0301"]
    generator = random.Random(0)
    return ["".join(generator.choices(pool, k=generator.randrange(0, 30))) for _ in range(count)]


def _expected(text: str, seen: set[str] | None, unknown: str) -> str:
    """``text`` with each character outside ``seen`` (all known where ``None``) replaced by ``unknown``."""
    return text if seen is None else "".join(char if char in seen else unknown for char in text)


@pytest.mark.parametrize("data_set", ["multi30k", "sst2", "tinyshakespeare", "wikitext2"])
@pytest.mark.parametrize("kind", TOKENIZERS.names())
def test_decoding_loses_exactly_the_unseen_characters(kind, data_set, data_dir):
    """WordPiece lost ``"   "`` (one ``<unk>``), a leading space, and every seen letter of a word with one
    unseen character (the whole word was ``<unk>``)."""
    train = _lines(data_dir, data_set, "train")[:TRAIN_LINES]
    tokenizer = train_tokenizer(kind, train, 600)
    seen = None if kind == "bpe" else set("".join(train))  # byte-level BPE knows every byte
    other = "sst2" if data_set == "multi30k" else "multi30k"  # other letters: umlauts against English
    texts = [
        *_lines(data_dir, data_set, "validation")[:CHECKED_LINES],
        *_lines(data_dir, other, "validation")[:CHECKED_LINES],
        *EDGES,
        *_random_texts(set("".join(train))),
    ]
    assert not any(SPACE in text for text in texts)  # a literal "▁" is the one other loss (test below)
    encoded = [encoding.ids for encoding in tokenizer.encode_batch(texts)]
    shown = tokenizer.decode_batch(encoded, skip_special_tokens=False)
    assert [(t, d) for t, d in zip(texts, shown, strict=True) if d != _expected(t, seen, UNK)] == []
    skipped = tokenizer.decode_batch(encoded)  # the default: <unk> is a special token, left out
    assert [(t, d) for t, d in zip(texts, skipped, strict=True) if d != _expected(t, seen, "")] == []


def test_wordpiece_reads_a_literal_visible_space_as_a_space():
    """The one loss besides unseen characters, documented in zoo/data/tokenizer.py: ``▁`` stands for a space."""
    tokenizer = train_tokenizer("wordpiece", ["a b c", "a\u2581b"] * 10, 40)
    assert tokenizer.decode(tokenizer.encode("a\u2581b c").ids) == "a b c"
