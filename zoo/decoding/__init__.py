"""Decoding shared by every generating task: greedy search, sampling and beam search over one step
interface (:mod:`.steps`), and the entry points on the encoder-decoder and the language model
(:mod:`.sequences`). Modules: ``steps``, ``sequences``, ``sampling`` (and greedy search), ``beam``."""

from zoo.decoding.beam import Hypothesis, beam_search, length_penalty
from zoo.decoding.sampling import filter_logits, next_token, sample, strip_after_eos
from zoo.decoding.sequences import generate_ids, greedy_decode, max_lengths, translate_ids
from zoo.decoding.steps import DecoderOnlyStep, EncoderDecoderStep, Step

__all__ = [
    "DecoderOnlyStep",
    "EncoderDecoderStep",
    "Hypothesis",
    "Step",
    "beam_search",
    "filter_logits",
    "generate_ids",
    "greedy_decode",
    "length_penalty",
    "max_lengths",
    "next_token",
    "sample",
    "strip_after_eos",
    "translate_ids",
]
