"""Commands on a trained model: ``translate``, ``generate``, ``attention`` (and ``average`` of checkpoints),
with the text-level functions they share (:mod:`.text`) and checkpoint loading (:mod:`.checkpoint`).

- ``translate``, ``generate``, ``attention``, ``average``: the commands; ``command``: their shared command line
- ``checkpoint``: loading a trained model; ``text``: text in, text out
- ``figure``: the attention figure; ``attention_callback``: the same maps at each validation of a ``fit``
- ``cache_command``: ``python -m zoo cache``, on the data cache (a command beside training, on this package's
  command line)
"""
