"""The class path ``zoo.callbacks.AttentionMaps``, which configs and command lines written before the package
restructure name: the callback is :class:`zoo.inference.attention_callback.AttentionMaps`. The one
module kept for a user's class path; nothing in the zoo imports it."""

from zoo.inference.attention_callback import AttentionMaps

__all__ = ["AttentionMaps"]
