"""Commands on a trained model: ``translate``, ``generate``, ``attention`` (and ``average`` of checkpoints),
with the text-level functions they share (:mod:`.text`) and checkpoint loading (:mod:`.checkpoint`)."""
