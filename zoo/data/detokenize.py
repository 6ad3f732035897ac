"""Ids back to text for every tokenizer, for any id sequence: one that begins or ends inside a word or inside a
character (a hypothesis, a sampled continuation, a window of a text), one of continuation pieces only, one with
special tokens or padding, an empty one.

The ``tokenizers`` library's byte-level decoder reads the bytes of the tokens with ``from_utf8_lossy``, so that
a sequence that starts or ends inside a character, or any sequence a model may emit, decodes with U+FFFD
replacement characters that no text held; here such bytes are left out (a U+FFFD that the text held, three
whole bytes, stays). The other tokenizers' decoders have no such bytes (:mod:`zoo.data.tokenizer`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenizers import Tokenizer, decoders


def _bytes_to_unicode() -> dict[int, str]:
    """Byte -> the printable character that stands for it in a byte-level token (``Ġ`` for a space): the
    printable Latin-1 bytes stand for themselves, the others for 256 and up in byte order (Radford et al.
    2019, GPT-2's ``encoder.py``; the mapping of ``tokenizers``' ByteLevel pre-tokenizer and decoder)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [byte for byte in range(256) if byte not in printable]
    return {**{byte: chr(byte) for byte in printable}, **{byte: chr(256 + n) for n, byte in enumerate(others)}}


BYTE_OF = {char: byte for byte, char in _bytes_to_unicode().items()}


def decode_batch(
    tokenizer: Tokenizer, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True
) -> list[str]:
    """The texts of id ``sequences``, as ``tokenizer.decode_batch`` gives them, but for a byte-level tokenizer
    without the bytes that form no whole UTF-8 character.

    Args:
        tokenizer: a tokenizer of :func:`zoo.data.tokenizer.train_tokenizer` (or loaded).
        sequences: lists of ids; an id the vocabulary lacks is left out, as the library does.
        skip_special_tokens: leave out ``<pad>``, ``<bos>``, ``<eos>`` and ``<unk>`` (else their text).

    Returns:
        One string per sequence.
    """
    if not isinstance(tokenizer.decoder, decoders.ByteLevel):
        return tokenizer.decode_batch([list(ids) for ids in sequences], skip_special_tokens=skip_special_tokens)
    return [_byte_level_text(tokenizer, ids, skip_special_tokens) for ids in sequences]


def decode(tokenizer: Tokenizer, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
    """The text of one id sequence (:func:`decode_batch`)."""
    return decode_batch(tokenizer, [ids], skip_special_tokens)[0]


def _byte_level_text(tokenizer: Tokenizer, ids: Sequence[int], skip_special_tokens: bool) -> str:
    special = {int(i): token.content for i, token in tokenizer.get_added_tokens_decoder().items()}
    ids = [int(i) for i in ids if not (skip_special_tokens and int(i) in special)]  # a character may span one
    parts, run = [], bytearray()
    for i in ids:
        if i in special:
            parts += [run.decode("utf-8", errors="ignore"), special[i]]
            run = bytearray()
        elif (token := tokenizer.id_to_token(i)) is not None:
            run.extend(BYTE_OF[char] for char in token)
    return "".join(parts) + run.decode("utf-8", errors="ignore")
