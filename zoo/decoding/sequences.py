"""Decoding entry points on the two generating backbones (Transformer or recurrent): translation of a batch of
sources and continuation of a prompt. Token ids in, token ids out; tokenizers stay with the callers."""

from __future__ import annotations

import math

import torch
from torch import Tensor

from zoo.decoding.beam import beam_search, search
from zoo.decoding.finished import Finished, Hypothesis
from zoo.decoding.recurrent import decoder_only_step, encoder_decoder_step
from zoo.decoding.sampling import sample, strip_after_eos
from zoo.nn import DecoderOnly, EncoderDecoder


def max_lengths(src_padding_mask: Tensor, max_len_a: float, max_len_b: int, max_positions: int | None = None) -> Tensor:
    """``(B,)`` the most target tokens per sentence: ``max_len_a * src_len + max_len_b`` (fairseq's
    ``--max-len-a/b``), ``src_len`` the sentence's own source tokens (so never the batch's padding), at
    least 1 and at most ``max_positions`` (learned positions)."""
    source_lengths = (~src_padding_mask).sum(dim=1).double()
    limit = (max_len_a * source_lengths + max_len_b).floor().long().clamp(min=1)
    return limit if max_positions is None else limit.clamp(max=max_positions)


def longest(source_length: int, max_len_a: float, max_len_b: int, max_positions: int | None = None) -> int:
    """The largest of :func:`max_lengths` for a batch whose sources are ``source_length`` tokens long with their
    padding (``S``, known on the host from the batch's shape), so that a decoding loop's bound needs no read
    from the device."""
    limit = max(int(math.floor(max_len_a * source_length + max_len_b)), 1)
    return limit if max_positions is None else min(limit, max_positions)


@torch.no_grad()
def greedy_decode(
    model: EncoderDecoder,
    src: Tensor,
    src_padding_mask: Tensor | None,
    bos_id: int,
    eos_id: int,
    pad_id: int,
    max_len: int | Tensor,
    max_steps: int | None = None,
) -> Tensor:
    """Greedy decoding with cached keys and values (the decoder runs on the new token only).

    Args:
        model: an encoder-decoder (in eval mode).
        src: ``(B, S)`` source ids.
        src_padding_mask: ``(B, S)`` bool, ``True`` at padding.
        bos_id: the first decoder input.
        eos_id: ends a hypothesis; later positions are ``pad_id``.
        pad_id: fills finished hypotheses.
        max_len: the most tokens generated per hypothesis: an int or ``(B,)``.
        max_steps: at least ``max(max_len)``, known on the host (:func:`longest`); ``None``: read from ``max_len``.

    Returns:
        ``(B, T)`` generated ids, ``T <= max_len``, ``<eos>`` included where produced.
    """
    step = encoder_decoder_step(model, src, src_padding_mask)
    start = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    return sample(step, start, max_len, eos_id, pad_id, max_steps=max_steps)


@torch.no_grad()
def translate_ids(
    model: EncoderDecoder,
    src: Tensor,
    src_padding_mask: Tensor,
    bos_id: int,
    eos_id: int,
    pad_id: int,
    max_len: Tensor,
    beam_size: int = 1,
    length_penalty: float = 0.0,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """Translations of a batch: greedy (``beam_size=1``, vectorised) or beam search.

    Args:
        model, src, src_padding_mask, bos_id, eos_id, pad_id: see :func:`greedy_decode`.
        max_len: ``(B,)`` from :func:`max_lengths`.
        beam_size, length_penalty, n_best: see :func:`zoo.decoding.beam.beam_search` (``alpha`` there).

    Returns:
        Per sentence, its ``n_best`` hypotheses, best first (greedy: one, its ``log_prob`` and ``score``
        NaN, as greedy search does not add them up).
    """
    if beam_size == 1 and n_best == 1:
        ids = greedy_decode(model, src, src_padding_mask, bos_id, eos_id, pad_id, max_len)
        ended = [eos_id in row for row in ids.tolist()]
        return [
            [Hypothesis(tokens, math.nan, math.nan, end)]
            for tokens, end in zip(strip_after_eos(ids, eos_id, max_len), ended, strict=True)
        ]
    found = search_translations(
        model, src, src_padding_mask, bos_id, eos_id, max_len, beam_size, length_penalty, n_best
    )
    return found.hypotheses()


@torch.no_grad()
def search_translations(
    model: EncoderDecoder,
    src: Tensor,
    src_padding_mask: Tensor,
    bos_id: int,
    eos_id: int,
    max_len: Tensor,
    beam_size: int,
    length_penalty: float = 0.0,
    n_best: int = 1,
    max_steps: int | None = None,
) -> Finished:
    """Beam search's translations of a batch, left on the device (:func:`zoo.decoding.beam.search`).

    Args:
        model, src, src_padding_mask, bos_id, eos_id: see :func:`greedy_decode`.
        max_len: ``(B,)`` from :func:`max_lengths`.
        beam_size, length_penalty, n_best: see :func:`zoo.decoding.beam.search` (``alpha`` there).
        max_steps: at least ``max(max_len)``, known on the host (:func:`longest`); ``None``: read from ``max_len``.
    """
    step = encoder_decoder_step(model, src, src_padding_mask, copies=beam_size)
    start = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    return search(step, start, beam_size, max_len, eos_id, length_penalty, n_best, max_steps)


@torch.no_grad()
def generate_ids(
    model: DecoderOnly,
    prompt: Tensor,
    max_new_tokens: int,
    eos_id: int,
    pad_id: int,
    num_samples: int = 1,
    temperature: float = 0.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    beam_size: int = 1,
    length_penalty: float = 0.0,
    window: int | None = None,
) -> list[list[int]]:
    """Continuations of one prompt by a language model: greedy, sampled, or by beam search.

    Args:
        model: the language model, in eval mode.
        prompt: ``(P,)`` ids, ``P >= 1`` (start an empty prompt from ``<bos>``).
        max_new_tokens: the most tokens added (it stops earlier at ``eos_id``).
        eos_id, pad_id: the end of a continuation, and what follows it in the batch.
        num_samples: continuations drawn (sampling), or the ``n_best`` returned (beam search).
        temperature, top_k, top_p, generator: see :func:`zoo.decoding.sampling.next_token`.
        beam_size: above 1, beam search (``temperature``, ``top_k``, ``top_p`` unused).
        length_penalty: beam search's ``alpha``.
        window: see :class:`zoo.decoding.steps.DecoderOnlyStep`.

    Returns:
        ``num_samples`` continuations, each a list of new ids without ``<eos>``.
    """
    if beam_size > 1:
        step = decoder_only_step(model, window)
        found = beam_search(step, prompt[None], beam_size, max_new_tokens, eos_id, length_penalty, num_samples)
        return [h.tokens for h in found[0]]
    step = decoder_only_step(model, window)
    start = prompt[None].expand(num_samples, -1)
    ids = sample(step, start, max_new_tokens, eos_id, pad_id, temperature, top_k, top_p, generator)
    return strip_after_eos(ids, eos_id, max_new_tokens)
