"""Whether a network of the configured size fits in memory, checked before it is built: one line naming the
knobs."""

from __future__ import annotations

import os

from zoo.nn import TransformerConfig
from zoo.nn.config import minimum_parameters

LAYER_FIELDS = ("num_layers", "num_encoder_layers", "num_decoder_layers")


def check_fits_in_memory(config: TransformerConfig | None, hparams) -> None:
    """Raise ``ValueError`` before a network is built with no ``vocab_size`` (the CLI sets it from the data
    module), or a Transformer (``config``; ``None``: a recurrent network) whose weights alone (fp32) cannot fit in
    this machine's memory, from a lower bound of its parameters (:func:`zoo.nn.config.minimum_parameters`), in one
    line instead of the allocator's traceback or hours of building layers."""
    if hparams["vocab_size"] <= 0:
        raise ValueError(f"model.vocab_size={hparams['vocab_size']} is not valid; the CLI sets it from the data module")
    if config is None:
        return
    layers = sum(hparams.get(name) or 0 for name in LAYER_FIELDS)
    least = minimum_parameters(config, layers, hparams.vocab_size)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else None
    if memory and 4 * least > memory:
        sizes = ", ".join(
            f"model.{name}={hparams[name]}" for name in (*LAYER_FIELDS, "d_model", "d_ff") if name in hparams
        )
        raise ValueError(
            f"{sizes} make at least {least:.3g} parameters ({4 * least / 2**30:.3g} GiB in fp32), more than this "
            f"machine's {memory / 2**30:.3g} GiB of memory; lower them"
        )
