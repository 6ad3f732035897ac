"""Commands on a trained model: ``translate``, ``generate``, ``attention`` (and ``average`` of checkpoints),
with the text-level functions they share (:mod:`.text`) and checkpoint loading (:mod:`.checkpoint`).

- ``translate``, ``generate``, ``attention``, ``average``: the commands; ``command``: their shared command line
- ``errors``: their one error, ``InferenceError``
- ``checkpoint``: loading a trained model; ``text``: text in, text out
- ``maps``: a model's attention maps on a text; ``figure``: drawing them; ``attention_callback``: the same maps
  at each validation of a ``fit``
- ``cache_command``: ``python -m zoo cache``, on the data cache (a command beside training, on this package's
  command line)

A command's module imports neither torch nor Lightning at its top: it checks its arguments (``command``,
``errors``), then imports the modules of the model, so that a bad argument is told in a fraction of a second.
"""
