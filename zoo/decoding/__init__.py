"""Decoding shared by every generating task: greedy search, sampling and beam search over one step
interface (:mod:`.steps`), and the entry points on the encoder-decoder and the language model
(:mod:`.sequences`). Modules: ``steps``, ``recurrent`` (the recurrent networks' steps), ``sequences``,
``sampling`` (and greedy search), ``stopping`` (when every row has finished, without a wait per token), ``beam``,
``finished`` (beam search's finished hypotheses, kept on the device), and ``settings``:
the checks of the decoders' settings, which import no torch.

``from zoo.decoding import generate_ids`` (or any name of ``__all__``) loads its module, and torch, on first use
(PEP 562), so that :mod:`zoo.decoding.settings` alone, which a command checks its flags with, loads no torch.
"""

from __future__ import annotations

import importlib

_MODULES = {  # each public name and the module that holds it
    "beam": ("beam_search", "length_penalty", "search"),
    "finished": ("Finished", "Hypothesis"),
    "sampling": ("filter_logits", "next_token", "sample", "strip_after_eos"),
    "recurrent": ("decoder_only_step", "encoder_decoder_step"),
    "sequences": ("generate_ids", "greedy_decode", "longest", "max_lengths", "search_translations", "translate_ids"),
    "stopping": ("LaggedStop",),
    "steps": ("DecoderOnlyStep", "EncoderDecoderStep", "Step"),
}
_HOMES = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module 'zoo.decoding' has no attribute {name!r}")
    return getattr(importlib.import_module(f"zoo.decoding.{_HOMES[name]}"), name)
