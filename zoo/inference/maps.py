"""The attention maps of a trained model on a text, each labelled with the tokens it reads (whitespace in
visible signs): what ``python -m zoo attention`` (:mod:`.attention`) and the callback of a ``fit``
(:mod:`.attention_callback`) draw with :mod:`.figure`."""

from __future__ import annotations

from pathlib import Path

import torch

from zoo.data.framing import SENTENCE, SOURCE, TEXT, bare_ids, framed
from zoo.data.tokenizer import BOS_ID, EOS_ID
from zoo.inference.checkpoint import TrainedModel
from zoo.inference.errors import InferenceError
from zoo.inference.figure import AttentionMap, draw_attention
from zoo.inference.text import translate_texts
from zoo.nn.attention_maps import recorded_attention
from zoo.tasks import ClassificationTask, TranslationTask
from zoo.tasks.recurrence import position_limit

TITLES = {"self_attn": "self-attention", "cross_attn": "cross-attention"}

WHITESPACE_SIGNS = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})


def _pieces(model: TrainedModel, ids: list[int], target: bool = False) -> list[str]:
    """One label per token: its text as the tokenizer decodes it alone (special tokens by name), a token of
    whitespace only in visible signs (``␣``, ``↵``), a line break inside a token too."""
    tokenizer = model.target_tokenizer if target else model.source_tokenizer
    return [tokenizer.id_to_token(i) if i <= EOS_ID + 1 else _visible(tokenizer.decode([i])) for i in ids]


def _visible(piece: str) -> str:
    """``" "`` -> ``"␣"``, ``"\n"`` -> ``"↵"``, ``"to\n"`` -> ``"to↵"``; ``" the"`` stays (a space before a word
    is seen as the gap before it); ``""`` (part of a character that a byte-level token splits) -> ``"�"``."""
    if not piece.strip() or "\n" in piece or "\r" in piece:
        return piece.translate(WHITESPACE_SIGNS) or "�"
    return piece


def maps_of(model: TrainedModel, text: str, target: str | None) -> list[AttentionMap]:
    """Run the model once on ``text`` with attention weights recorded; one map per attention module."""
    task, device = model.task, model.task.device
    if isinstance(task, TranslationTask):
        target = own_translation(model, text) if target is None else target
        src = framed(model.source_tokenizer, [text], SOURCE)[0]
        tgt = bare_ids(model.target_tokenizer, [target])[0]
        labels = {"encoder": (_pieces(model, src),) * 2, "decoder": (_pieces(model, tgt + [EOS_ID], True),) * 2}
        labels["cross"] = (labels["decoder"][0], labels["encoder"][0])
        labels["decoder"] = (labels["decoder"][0], _pieces(model, [BOS_ID] + tgt, True))
        run = lambda: task(torch.tensor([src], device=device), torch.tensor([[BOS_ID] + tgt], device=device))  # noqa: E731
    else:
        framing = SENTENCE if isinstance(task, ClassificationTask) else TEXT
        tokens = framed(model.source_tokenizer, [text], framing)[0]
        if not tokens:
            raise InferenceError("--text is empty; a language model needs at least one token to attend over")
        labels = {"encoder": (_pieces(model, tokens),) * 2, "decoder": (_pieces(model, tokens),) * 2}
        run = lambda: task(torch.tensor([tokens], device=device))  # noqa: E731
    _check_length(task, max(len(row) for row, _ in labels.values()))
    with torch.no_grad(), recorded_attention(task.network) as weights:
        run()
    maps = []
    for name, value in weights.items():  # e.g. decoder.layers.0.cross_attn
        if name.count(".") != 3:  # a recurrent decoder's one alignment (Bahdanau et al. 2015, Figure 3)
            maps.append(AttentionMap("decoder alignment", value[0], *labels["cross"]))
            continue
        stack, _, layer, kind = name.split(".")
        rows, columns = labels["cross" if kind == "cross_attn" else stack]
        maps.append(AttentionMap(f"{stack} {int(layer) + 1} {TITLES[kind]}", value[0], rows, columns))
    if not maps:
        raise InferenceError(_without_attention(task.hparams))
    return maps


def _without_attention(hparams) -> str:
    """Why a recurrent model has no map to draw: no alignment (``none``, ``context``) or no attention at all."""
    attention = hparams.get("rnn_attention")
    what = f"model.rnn_attention={attention!r}" if attention else "a recurrent language model or classifier"
    return (
        f"this model (model.architecture='rnn', {what}) has no attention to draw; an encoder-decoder with "
        f"model.rnn_attention additive, dot, general or concat has an alignment"
    )


def own_translation(model: TrainedModel, text: str) -> str:
    """The model's own translation of ``text`` (greedy), on which a translation model's maps are drawn."""
    return translate_texts(model, [text], beam_size=1)[0][0][0]


def map_title(text: str, target: str | None = None, own: bool = False) -> str:
    """What the maps were drawn on: ``'text'``, and for a translation model ``→ 'target'`` and whose it is
    (``own``: the model's translation, else ``--target``)."""
    if target is None:
        return repr(text)
    whose = "the model's own translation" if own else "--target"
    return f"{text!r} → {target!r} ({whose})"


def _check_length(task, tokens: int) -> None:
    """Refuse a text longer than a learned position table holds, saying to shorten it (the model is trained).

    Raises:
        InferenceError: naming the length, ``model.max_len`` and the fix.
    """
    if position_limit(task.hparams) and tokens > task.hparams.max_len:
        raise InferenceError(
            f"--text (or its translation) is {tokens} tokens, more than the {task.hparams.max_len} learned "
            f"positions of the model (model.max_len); shorten --text or --target"
        )


def example_text(model: TrainedModel, datamodule, split: str = "validation") -> str:
    """The input text of the first example of a data module's ``split``, decoded from its ids (the tokenizers
    round-trip text): a source sentence, a sentence to classify, or a block of text."""
    batch = datamodule.collate(split, [0])
    ids = batch["src"] if "src" in batch else batch["tokens"]
    return model.source_tokenizer.decode(ids[0].tolist())


def draw_example(model: TrainedModel, text: str, out: Path) -> None:
    """Draw the attention maps of ``model`` on ``text`` (a translation model: on its own translation) to the
    PNG ``out``."""
    target = own_translation(model, text) if isinstance(model.task, TranslationTask) else None
    draw_attention(maps_of(model, text, target), out, map_title(text, target, own=True))
