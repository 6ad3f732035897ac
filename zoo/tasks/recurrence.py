"""``model.architecture``: a task's network is a Transformer or a recurrent network (:mod:`zoo.nn.recurrent`).
The recurrent knobs become one :class:`RecurrentConfig` here, and the knobs the chosen architecture does not
use are named (:func:`zoo.knobs.not_applying`)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from zoo.knobs import not_applying
from zoo.messages import check_at_least, check_between, check_choice
from zoo.nn.recurrent import RecurrentConfig
from zoo.registry import ARCHITECTURES, POSITIONAL_ENCODINGS


def recurrent_config(hparams: Mapping) -> RecurrentConfig | None:
    """The recurrent network's config from a task's knobs, or ``None`` for ``model.architecture=transformer``.
    ``model.d_model`` is the embedding width, ``model.rnn_hidden`` the state width (``None``: ``d_model``).

    Raises:
        ValueError: one line naming the field, for an unknown architecture, cell or attention, a size below 1,
            a ``teacher_forcing`` outside [0, 1] or input feeding without Luong's attention.
    """
    check_choice("model.architecture", hparams["architecture"], ARCHITECTURES)
    check_at_least("model.rnn_hidden", hparams["rnn_hidden"], 1, optional=True)
    if "teacher_forcing" in hparams:
        check_between("model.teacher_forcing", hparams["teacher_forcing"], 0.0, 1.0, high_inclusive=True)
    if hparams["architecture"] != "rnn":
        return None
    return RecurrentConfig(
        cell=hparams["rnn_cell"],
        d_embed=hparams["d_model"],
        hidden_size=hparams["rnn_hidden"] or hparams["d_model"],
        dropout=hparams["dropout"],
        bidirectional=hparams["bidirectional"],
        attention=hparams.get("rnn_attention", "none"),
        input_feeding=hparams.get("input_feeding", False),
        reverse_source=hparams.get("reverse_source", False),
    )


def knobs_not_applying(task: type, hparams: Mapping) -> tuple[dict[str, str], list[str]]:
    """The knobs of ``task`` (a class; ``model.<knob>``) that the other knobs leave unused
    (:func:`zoo.knobs.not_applying`; ``model.pe`` for a recurrent network, ``model.rope_theta`` under a ``pe``
    other than rope), each with the knob that leaves it unused, and those of them set to another value than the
    task's default (which a user may think trained)."""
    defaults: dict = {}
    for klass in reversed(task.__mro__):
        if "__init__" in vars(klass):
            parameters = inspect.signature(klass.__init__).parameters.values()
            defaults.update({p.name: p.default for p in parameters if p.default is not p.empty})
    names = not_applying(task.__name__, hparams)
    given = [name for name in names if name in defaults and hparams[name] != defaults[name]]
    return {f"model.{name}": f"model.{why}" for name, why in names.items()}, [f"model.{name}" for name in given]


def position_limit(hparams: Mapping) -> int | None:
    """``model.max_len`` where the network has no position past it (a Transformer with a learned table, or
    another ``length_limited`` encoding), else ``None`` (a recurrent network has no positions: ``model.pe`` does
    not apply to it)."""
    if hparams.get("architecture", "transformer") == "rnn":
        return None
    return hparams["max_len"] if POSITIONAL_ENCODINGS.get(hparams["pe"]).length_limited else None
