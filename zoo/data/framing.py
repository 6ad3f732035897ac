"""A text's framing: the special tokens put around it before the model reads it.

zoo's own tokenizers frame nothing themselves, so each task frames as it always has (a sentence to classify
starts with ``<bos>``, a source sentence ends with ``<eos>``, a prompt is its text). A published checkpoint's
tokenizer keeps its post-processor at import (``zoo import``): BERT's ``[CLS] $A [SEP]``, Llama's ``<s> $A``,
Marian's ``$A </s>``; GPT-2's adds nothing. Where it adds tokens, that template frames every single text
encoded for the model instead, so that the model reads what it read in pre-training. A target sentence is
never framed by it: the decoder's start and end tokens are the model's (``<bos>``, ``<eos>``)."""

from __future__ import annotations

from dataclasses import dataclass

from tokenizers import Tokenizer

from zoo.data.tokenizer import BOS_ID, EOS_ID


@dataclass(frozen=True)
class Framing:
    """The ids before (``start``) and after (``end``) a text's own."""

    start: tuple[int, ...] = ()
    end: tuple[int, ...] = ()

    def frame(self, ids: list[int], limit: int | None = None) -> list[int]:
        """``start + ids + end``, the text's ids cut so that the whole is at most ``limit`` tokens (``None``: no
        limit)."""
        room = None if limit is None else max(0, limit - len(self.start) - len(self.end))
        return [*self.start, *ids[:room], *self.end]

    def describe(self, tokenizer: Tokenizer) -> str:
        """``[CLS] text [SEP]``: the framing in tokens."""
        return " ".join([*map(tokenizer.id_to_token, self.start), "text", *map(tokenizer.id_to_token, self.end)])


SENTENCE = Framing((BOS_ID,))  # zoo's: a sentence to classify starts with <bos> (BERT's [CLS], its pooled position)
SOURCE = Framing(end=(EOS_ID,))  # zoo's: a source sentence ends with <eos>
TEXT = Framing()  # zoo's: a language model's text and prompt as they are
TASK_FRAMING = {"encoder_only": SENTENCE, "encoder_decoder": SOURCE, "decoder_only": TEXT}  # by backbone


def template_of(tokenizer: Tokenizer) -> Framing | None:
    """The framing the tokenizer's post-processor gives a single text, or ``None`` where it adds no token (zoo's
    own tokenizers, GPT-2's)."""
    if tokenizer.post_processor is None or tokenizer.num_special_tokens_to_add(False) == 0:
        return None
    if tokenizer.padding or tokenizer.truncation:  # a published tokenizer.json may pad every text to a length
        tokenizer = Tokenizer.from_str(tokenizer.to_str())
        tokenizer.no_padding()
        tokenizer.no_truncation()
    bare = tokenizer.encode("a", add_special_tokens=False).ids
    ids = tokenizer.encode("a").ids
    at = next(i for i in range(len(ids) - len(bare) + 1) if ids[i : i + len(bare)] == bare)
    return Framing(tuple(ids[:at]), tuple(ids[at + len(bare) :]))


def framed(tokenizer: Tokenizer, texts: list[str], default: Framing, limit: int | None = None) -> list[list[int]]:
    """The ids of each of ``texts``, framed by the tokenizer's template where it has one, else by ``default``
    (the task's own), each at most ``limit`` tokens in all."""
    framing = template_of(tokenizer) or default
    return [framing.frame(e.ids, limit) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


def bare_ids(tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
    """The ids of each of ``texts`` with no framing: a target sentence, a language model's stream."""
    return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]
