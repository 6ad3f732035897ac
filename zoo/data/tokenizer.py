"""Tokenizers built with the ``tokenizers`` library, with special tokens at fixed ids.

Ids: ``<pad>`` 0, ``<bos>`` 1 (also the ``[CLS]`` token of classification), ``<eos>`` 2, ``<unk>`` 3.
Kinds (``data.tokenizer``): ``bpe`` (byte-level BPE, GPT-2 style), ``wordpiece`` (WordPiece sub-words with
the spaces kept as ``▁``, as in SentencePiece) and ``char`` (one token per character). Every kind is
lossless: decoding the encoding of a text gives the text back, spaces, tabs and line breaks included, but for
the characters unseen in training, which ``wordpiece`` and ``char`` encode as one ``<unk>`` each (decoded as
``<unk>``, or left out with ``skip_special_tokens``), and for a literal ``▁`` (U+2581), which ``wordpiece``
reads back as a space. So BLEU compares detokenised hypotheses with references that a perfect model would
reproduce exactly (tests/data/test_round_trip.py).

Special tokens come only from the pipeline (the data modules add ``<bos>`` and ``<eos>``; the collate pads):
the literal text ``<pad>`` in an input is encoded as the characters ``<``, ``p``, ``a``, ``d``, ``>``, never as
id 0 (``encode_special_tokens``, which :func:`load_tokenizer` sets again after loading, as the library does
not save it).
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from zoo.registry import TOKENIZERS

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIAL_TOKENS = [PAD, BOS, EOS, UNK]
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(4)
DEFAULT_VOCAB_SIZE = 8000  # data.vocab_size when left out (unused by char)
BPE_SMALLEST = len(SPECIAL_TOKENS) + 256  # byte-level BPE keeps every byte as a token
SPACE = "▁"  # U+2581, SentencePiece's visible space (Kudo and Richardson 2018)
MAX_WORD = 100  # characters: WordPiece's max_input_chars_per_word, beyond which a whole word is <unk>
# A word and its leading space; a run of punctuation and its space; each extra space (the last space of a run
# goes with the word after it); any other whitespace character. A longer word or run is cut every 99
# characters, so that with its space it stays within MAX_WORD.
WORDS = r"▁?[\p{L}\p{N}]{1,99}|▁?[^\s\p{L}\p{N}▁]{1,99}|▁(?=▁)|\s"


@TOKENIZERS.register("bpe", synonyms=("byte_bpe", "byte_level", "bytelevel", "byte_level_bpe", "gpt2"))
def _bpe(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


@TOKENIZERS.register("wordpiece", synonyms=("word_piece", "wp", "bert"))
def _wordpiece(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    """WordPiece (Wu et al. 2016) over words that carry their leading space as ``▁`` (the first word of a text
    too, as SentencePiece does), so that a word is one token wherever it stands; a run of punctuation is a word
    of its own, with its space; extra spaces and other whitespace are tokens of their own. BERT's decoder
    joins words with spaces ("woman ' s"); here pieces are concatenated and ``▁`` turned back into a space,
    which inverts the encoding (see :func:`_wordpiece_tokenizer` for what it loses).

    Measured on SST-2 (docs/results.md): words without their space (every first word) and a lone ``▁`` before
    every punctuation mark, the most frequent token, cost 6 points of accuracy against BERT's pre-tokenizer."""
    texts = list(texts)  # read twice
    tokenizer = _wordpiece_tokenizer(models.WordPiece(unk_token=UNK))
    # The trainer gives each continuing piece ("##a") its id in the order of a hash map, which changes from one
    # training to the next, and breaks ties between merges of equal count by those ids, so that two trainings
    # on the same text give other ids and other tokens (huggingface/tokenizers#1794). Declared up front after
    # the alphabet, each in sorted order (the trainer sorts its alphabet so), every piece has a fixed id; the
    # tokenizer is then rebuilt from the vocabulary, so that none is kept as a special token.
    split = tokenizer.pre_tokenizer.pre_tokenize_str
    words = [word for text in texts for word, _ in split(tokenizer.normalizer.normalize_str(text))]
    alphabet = sorted({char for word in words for char in word})
    continuing = sorted({f"##{char}" for word in words for char in word[1:]})
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS + alphabet + continuing, show_progress=False
    )
    tokenizer.train_from_iterator(texts, trainer)
    return _wordpiece_tokenizer(models.WordPiece(tokenizer.get_vocab(), unk_token=UNK), tokenizer.get_vocab())


def _wordpiece_tokenizer(model: models.WordPiece, vocab: dict[str, int] | None = None) -> Tokenizer:
    """A tokenizer of ``model`` with the normalizer, pre-tokenizer and decoder of :func:`_wordpiece`.

    Every space becomes ``▁`` and one more ``▁`` goes before the text, which the decoder takes off again (a
    text that starts with a space starts with two). With the trained ``vocab``, a word is also cut where
    WordPiece could not encode it whole, which would make the whole word ``<unk>``: around a character unseen
    in training (which alone becomes ``<unk>``), before a character that never continued a word in training
    (it has no ``##`` piece) and between two ``#`` (a piece that starts with ``##`` would read as a
    continuation); :data:`WORDS` cuts words longer than :data:`MAX_WORD`. Decoding then gives the text back
    but for each unseen character (``<unk>``, or nothing with ``skip_special_tokens``) and a literal ``▁``
    (U+2581), which reads as a space.
    """
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.Sequence([normalizers.Replace(" ", SPACE), normalizers.Prepend(SPACE)])
    splits = [pre_tokenizers.Split(Regex(WORDS), "isolated")]
    if vocab is not None:
        splits.append(pre_tokenizers.Split(Regex(_unencodable(vocab)), "isolated"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(splits)
    tokenizer.decoder = _wordpiece_decoder()
    return tokenizer


def _wordpiece_decoder() -> decoders.Decoder:
    """Pieces concatenated, each without its ``##`` (the first too: a sequence may begin inside a word, as a
    hypothesis or a window does, where the library's WordPiece decoder keeps it), and ``▁`` turned back into
    a space but for the first one of the text. No word holds ``##`` (:func:`_unencodable` cuts it), so a
    leading ``##`` is always the continuation mark."""
    return decoders.Sequence(
        [
            decoders.Replace(Regex("^##"), ""),
            decoders.Metaspace(replacement=SPACE, prepend_scheme="first"),
        ]
    )


def _unencodable(vocab: dict[str, int]) -> str:
    """A regex of the characters before which a word is cut (see :func:`_wordpiece_tokenizer`)."""
    alphabet = sorted(token for token in vocab if len(token) == 1)
    starts_only = [char for char in alphabet if f"##{char}" not in vocab]
    alternatives = [f"[^{_char_class(alphabet)}]", "#(?=#)"]
    if starts_only:
        alternatives.append(rf"(?<=[\s\S])[{_char_class(starts_only)}]")  # not at a word's start
    return "|".join(alternatives)


def _char_class(chars: list[str]) -> str:
    """The inside of a regex character class of ``chars``, each as an escape (no character is special)."""
    return "".join(f"\\x{{{ord(char):x}}}" for char in chars)


@TOKENIZERS.register("char", synonyms=("character", "characters", "chars"))
def _char(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    chars = sorted(set().union(*(set(text) for text in texts)))
    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS + chars)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), "isolated")
    tokenizer.decoder = decoders.Fuse()
    return tokenizer


def check_vocab_size(kind: str, vocab_size: int) -> None:
    """Check the configuration's ``data.vocab_size`` for a tokenizer ``kind`` (the data modules do, before
    anything loads): room for the special tokens and more; for ``char``, whose vocabulary is every character of
    the training text, its default (another value would be ignored, yet make another run configuration); for
    ``bpe``, room for its 256 bytes too.

    Raises:
        ValueError: naming ``data.vocab_size``, its value and what is valid.
    """
    if kind == "char" and vocab_size != DEFAULT_VOCAB_SIZE:
        raise ValueError(
            f"data.vocab_size={vocab_size!r} is not used by data.tokenizer='char' (its vocabulary is every "
            f"character of the train split); leave data.vocab_size out"
        )
    too_small = isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= len(SPECIAL_TOKENS)
    if kind != "char" and too_small:
        raise ValueError(f"data.vocab_size={vocab_size!r} is not valid; it must exceed {len(SPECIAL_TOKENS)}")
    if kind == "bpe" and vocab_size < BPE_SMALLEST:  # the trainer would keep every byte and exceed it
        raise ValueError(
            f"data.vocab_size={vocab_size!r} is not valid for data.tokenizer='bpe'; it must be at least "
            f"{BPE_SMALLEST} (the {len(SPECIAL_TOKENS)} special tokens and the 256 bytes of its byte-level alphabet)"
        )


def train_tokenizer(kind: str, texts: list[str], vocab_size: int) -> Tokenizer:
    """Train a tokenizer on ``texts``.

    Args:
        kind: ``bpe``, ``wordpiece`` or ``char``.
        texts: the training text (the train split).
        vocab_size: the target vocabulary size, special tokens included (ignored by ``char``, whose
            vocabulary is the characters of ``texts``).

    Returns:
        A ``tokenizers.Tokenizer`` with :data:`SPECIAL_TOKENS` at ids 0-3, which encodes their literal text
        as ordinary text.

    Raises:
        ValueError: for an unknown ``kind`` or a ``vocab_size`` too small to hold the special tokens.
    """
    TOKENIZERS.check(kind)
    if kind != "char":  # char takes any vocab_size here: it ignores it
        check_vocab_size(kind, vocab_size)
    tokenizer = TOKENIZERS.build(kind, texts, vocab_size)
    tokenizer.add_special_tokens(SPECIAL_TOKENS)
    assert [tokenizer.token_to_id(t) for t in SPECIAL_TOKENS] == [PAD_ID, BOS_ID, EOS_ID, UNK_ID]
    tokenizer.encode_special_tokens = True
    return tokenizer


def load_tokenizer(json: str) -> Tokenizer:
    """A tokenizer saved with ``Tokenizer.to_str``, set to encode the literal text of special tokens as
    ordinary text (a setting ``to_str`` does not keep); a WordPiece one with today's decoder, also where a
    cache or a checkpoint saved an older one."""
    tokenizer = Tokenizer.from_str(json)
    tokenizer.encode_special_tokens = True
    if isinstance(tokenizer.model, models.WordPiece):  # saved before the decoder took "##" off a first piece
        tokenizer.decoder = _wordpiece_decoder()
    return tokenizer


def checkpoint_tokenizers(checkpoint: dict) -> dict[str, str] | None:
    """The tokenizers (name -> JSON) that a checkpoint's data module saved
    (:meth:`zoo.data.base.ZooDataModule.state_dict`), or ``None`` for a checkpoint without them."""
    found = [value["tokenizers"] for value in checkpoint.values() if isinstance(value, dict) and "tokenizers" in value]
    return found[0] if found else None
