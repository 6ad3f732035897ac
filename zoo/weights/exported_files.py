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


def tokenizer_files(tokenizer: Tokenizer, backbone: str, ids: dict | None = None) -> dict[str, str]:
    """``tokenizer.json`` and ``tokenizer_config.json`` naming the special tokens, for a tokenizer in zoo's ids
    or, with ``ids`` (zoo's special id -> the tokenizer's; ``None`` where it has no such token), a published
    checkpoint's own. A tokenizer with no template of its own gets the task's framing
    (:data:`zoo.data.framing.TASK_FRAMING`) as one, so that it frames a text as zoo fed it to the model."""
    tokenizer = Tokenizer.from_str(tokenizer.to_str())
    ids = ids or {i: i for i in (PAD_ID, BOS_ID, EOS_ID, UNK_ID)}
    framing = TASK_FRAMING[backbone]
    mapped = lambda part: tuple(ids[i] for i in part if ids[i] is not None)  # noqa: E731
    framing = type(framing)(mapped(framing.start), mapped(framing.end))
    if template_of(tokenizer) is None and (framing.start or framing.end):
        ids_used = [*framing.start, *framing.end]
        names = [tokenizer.id_to_token(i) for i in framing.start], [tokenizer.id_to_token(i) for i in framing.end]
        single = " ".join([*names[0], "$A", *names[1]])
        specials = [(tokenizer.id_to_token(i), i) for i in dict.fromkeys(ids_used)]
        tokenizer.post_processor = processors.TemplateProcessing(single=single, special_tokens=specials)
    roles = {"pad_token": ids[PAD_ID], "bos_token": ids[BOS_ID], "eos_token": ids[EOS_ID], "unk_token": ids[UNK_ID]}
    names = {k: tokenizer.id_to_token(i) for k, i in roles.items() if i is not None}
    config = {"tokenizer_class": "PreTrainedTokenizerFast", **names}
    return {"tokenizer.json": tokenizer.to_str(), "tokenizer_config.json": json.dumps(config, indent=2) + "\n"}


def generation_config(hparams: dict, backbone: str, ids: dict | None = None) -> dict | None:
    """zoo's greedy decoding as ``generation_config.json`` (``None`` for a classifier): the start, end and
    padding ids; the tokens zoo never generates (``<pad>`` and ``<bos>``; in a language model's text ``<eos>``
    too, :mod:`zoo.decoding.steps`); ``zoo generate``'s ``--max_new_tokens``, or for a translation a
    ``max_length`` no shorter than zoo's ``max_len_a * source length + max_len_b`` for a source of
    ``model.max_len`` tokens, within the decoder's ``model.max_len`` positions; no forced end token. ``ids``:
    zoo's id -> the folder's (a published checkpoint's own; ``None`` where it has no such token)."""
    from zoo.inference.generate import MAX_NEW_TOKENS

    if backbone == "encoder_only":
        return None
    ids = ids or {i: i for i in (PAD_ID, BOS_ID, EOS_ID)}
    common = {"bos_token_id": ids[BOS_ID], "eos_token_id": ids[EOS_ID], "pad_token_id": ids[PAD_ID]}
    common |= {"do_sample": False, "num_beams": 1, "forced_eos_token_id": None}
    banned = lambda *zoo: [[i] for i in dict.fromkeys(ids[z] for z in zoo) if i is not None]  # noqa: E731
    if backbone == "decoder_only":
        return {**common, "max_new_tokens": MAX_NEW_TOKENS, "bad_words_ids": banned(PAD_ID, BOS_ID, EOS_ID)}
    longest = math.ceil(hparams["max_len_a"] * hparams["max_len"] + hparams["max_len_b"]) + 1  # and the start
    longest = min(longest, hparams["max_len"])
    common |= {"decoder_start_token_id": ids[BOS_ID], "max_length": longest}
    return {**common, "bad_words_ids": banned(PAD_ID, BOS_ID)}
