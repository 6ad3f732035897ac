"""The files of an exported folder besides its weights that make ``transformers`` read and decode text as zoo
does: ``tokenizer.json`` with zoo's framing as its template, ``tokenizer_config.json`` naming the special
tokens, and ``generation_config.json`` stating zoo's greedy decoding, so that ``AutoTokenizer`` gives zoo's
ids and ``generate()`` with no arguments zoo's tokens."""

from __future__ import annotations

import json
import math

from tokenizers import Tokenizer, processors

from zoo.data.framing import TASK_FRAMING, template_of
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID


def tokenizer_files(tokenizer: Tokenizer, backbone: str) -> dict[str, str]:
    """``tokenizer.json`` (its own template kept, an imported tokenizer's; else the task's framing,
    :data:`zoo.data.framing.TASK_FRAMING`, as a ``TemplateProcessing``) and ``tokenizer_config.json``."""
    tokenizer = Tokenizer.from_str(tokenizer.to_str())
    framing = TASK_FRAMING[backbone]
    if template_of(tokenizer) is None and (framing.start or framing.end):
        ids = [*framing.start, *framing.end]
        names = [tokenizer.id_to_token(i) for i in framing.start], [tokenizer.id_to_token(i) for i in framing.end]
        single = " ".join([*names[0], "$A", *names[1]])
        specials = [(tokenizer.id_to_token(i), i) for i in dict.fromkeys(ids)]
        tokenizer.post_processor = processors.TemplateProcessing(single=single, special_tokens=specials)
    roles = {"pad_token": PAD_ID, "bos_token": BOS_ID, "eos_token": EOS_ID, "unk_token": UNK_ID}
    config = {"tokenizer_class": "PreTrainedTokenizerFast", **{k: tokenizer.id_to_token(i) for k, i in roles.items()}}
    return {"tokenizer.json": tokenizer.to_str(), "tokenizer_config.json": json.dumps(config, indent=2) + "\n"}


def generation_config(hparams: dict, backbone: str) -> dict | None:
    """zoo's greedy decoding as ``generation_config.json`` (``None`` for a classifier): the start, end and
    padding ids; the tokens zoo never generates (``<pad>`` and ``<bos>``; in a language model's text ``<eos>``
    too, :mod:`zoo.decoding.steps`); ``zoo generate``'s ``--max_new_tokens``, or for a translation a
    ``max_length`` no shorter than zoo's ``max_len_a * source length + max_len_b`` for a source of
    ``model.max_len`` tokens, within the decoder's ``model.max_len`` positions; no forced end token."""
    from zoo.inference.generate import MAX_NEW_TOKENS

    if backbone == "encoder_only":
        return None
    common = {"bos_token_id": BOS_ID, "eos_token_id": EOS_ID, "pad_token_id": PAD_ID, "do_sample": False}
    common |= {"num_beams": 1, "forced_eos_token_id": None}
    if backbone == "decoder_only":
        return {**common, "max_new_tokens": MAX_NEW_TOKENS, "bad_words_ids": [[PAD_ID], [BOS_ID], [EOS_ID]]}
    longest = math.ceil(hparams["max_len_a"] * hparams["max_len"] + hparams["max_len_b"]) + 1  # and the start
    longest = min(longest, hparams["max_len"])
    return {**common, "decoder_start_token_id": BOS_ID, "max_length": longest, "bad_words_ids": [[PAD_ID], [BOS_ID]]}
