"""Text in, text out: translation of sentences and continuation of a prompt by a trained model. These are
the functions that ``translate``, ``generate`` (and ``predict``) call."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch

from zoo.data.detokenize import decode_batch
from zoo.data.framing import SOURCE, TEXT, framed
from zoo.data.padding import pad
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.decoding import generate_ids
from zoo.inference.checkpoint import TrainedModel
from zoo.tasks import LanguageModelTask, TranslationTask
from zoo.tasks.recurrence import position_limit


def _batches(lengths: list[int], batch_size: int) -> Iterator[list[int]]:
    """Indices in batches of similar length (less padding), longest first."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def source_limit(task: TranslationTask) -> int | None:
    """The most source tokens a translation model reads (its learned positions, ``<eos>`` aside), or ``None``
    when its encoding has a position for any length; a longer source is cut to its first tokens."""
    limit = position_limit(task.hparams)
    return None if limit is None else limit - 1


@torch.no_grad()
def translate_texts(
    model: TrainedModel,
    texts: list[str],
    beam_size: int | None = None,
    length_penalty: float | None = None,
    n_best: int = 1,
    max_len_a: float | None = None,
    max_len_b: int | None = None,
    batch_size: int = 64,
    progress: Callable | None = None,
) -> list[list[tuple[str, float]]]:
    """The ``n_best`` translations of each text with their scores (NaN for greedy search), best first.

    Args:
        model: a translation model (:func:`zoo.inference.checkpoint.load_trained`).
        texts: source sentences.
        beam_size, length_penalty, n_best, max_len_a, max_len_b: see
            :meth:`zoo.tasks.TranslationTask.hypotheses` (``None``: the model's own settings).
        batch_size: sentences decoded at once.
        progress: called with the number of sentences done after each batch.
    """
    task: TranslationTask = model.task
    longest = source_limit(task)
    limit = None if longest is None else longest + 1
    sources = framed(model.source_tokenizer, list(texts), SOURCE, limit)
    results: list = [None] * len(texts)
    for batch in _batches([len(s) for s in sources], batch_size):
        src, mask = (t.to(task.device) for t in pad([torch.tensor(sources[i]) for i in batch]))
        found = task.hypotheses(src, mask, beam_size, length_penalty, n_best, max_len_a, max_len_b)
        for i, hypotheses in zip(batch, found, strict=True):
            decoded = decode_batch(model.target_tokenizer, [h.tokens for h in hypotheses])
            results[i] = [(text, h.score) for text, h in zip(decoded, hypotheses, strict=True)]
        if progress is not None:
            progress(len(batch))
    return results


@torch.no_grad()
def generate_text(
    model: TrainedModel,
    prompt: str,
    max_new_tokens: int,
    num_samples: int = 1,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    beam_size: int = 1,
    length_penalty: float = 0.0,
) -> list[str]:
    """``num_samples`` continuations of ``prompt`` (each with the prompt in front).

    An empty prompt starts from ``<bos>``. The context slides over the last ``model.max_len`` tokens (as
    nanoGPT's ``generate``), so a long prompt or continuation never runs out of learned positions.

    Args:
        model: a language model (:func:`zoo.inference.checkpoint.load_trained`).
        prompt: the text to continue.
        max_new_tokens: the most tokens added.
        num_samples, temperature, top_k, top_p, beam_size, length_penalty: see
            :func:`zoo.decoding.generate_ids` (``temperature=0``: greedy).
        seed: fixes the samples (``None``: a fresh seed each time).
    """
    task: LanguageModelTask = model.task
    tokenizer = model.target_tokenizer
    ids = framed(tokenizer, [prompt], TEXT)[0] or [BOS_ID]
    generator = torch.Generator(task.device)
    generator.manual_seed(seed) if seed is not None else generator.seed()
    prompt_ids = torch.tensor(ids, device=task.device)
    continuations = generate_ids(
        task.network,
        prompt_ids,
        max_new_tokens,
        EOS_ID,
        PAD_ID,
        num_samples,
        temperature,
        top_k,
        top_p,
        generator,
        beam_size,
        length_penalty,
        window=task.hparams.max_len,
    )
    return decode_batch(tokenizer, [ids + c for c in continuations])
