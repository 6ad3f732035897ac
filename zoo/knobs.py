"""What zoo keeps per model knob beyond its type, default and help (those are the task's parameter and the
network config's field and docstring): the architectures whose networks read it, the value of the paper's base
model, how a run name writes it, and the knob under whose values alone it is read. One :class:`Knob` per knob in
:data:`KNOBS`; applicability (:func:`not_applying`), run names (:mod:`zoo.runs.identity`) and compare's tie-break
(:mod:`zoo.compare.configurations`) read them from here. docs/extending.md, "A new knob", says where a knob goes.

Imports nothing of the zoo, so every layer may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TRANSFORMER, RNN = "transformer", "rnn"  # the values of model.architecture
NO_VALUE = object()  # a knob without a value in the paper's base model


@dataclass(frozen=True)
class Knob:
    """What zoo keeps of one model knob.

    Args:
        applies_to: the architectures (``model.architecture``) whose networks read it; under another one it
            trains nothing, which ``fit`` says and records (``summary.json``'s ``not_applying``) and ``compare``
            never counts as a variation.
        paper: its value in the base model of Vaswani et al. 2017 (Table 3, first row): the tie-break of
            ``compare``'s default baseline; :data:`NO_VALUE` where it has none there.
        name_form: per architecture, how a run name writes it (``"h{}"``: ``h8``), in :data:`KNOBS`' order.
        read_under: ``(knob, values)``: it is read only where that other knob has one of these values
            (``rope_theta`` under ``pe=rope``).
        recurrent_unused_by: the tasks (class names) whose recurrent network does not read it either.
    """

    applies_to: tuple[str, ...] = (TRANSFORMER, RNN)
    paper: object = NO_VALUE
    name_form: Mapping[str, str] = field(default_factory=dict)
    read_under: tuple[str, tuple[str, ...]] | None = None
    recurrent_unused_by: tuple[str, ...] = ()


_TRANSFORMER = Knob(applies_to=(TRANSFORMER,))
_RNN = Knob(applies_to=(RNN,))

# every model knob with something to keep; a knob of every architecture with nothing to keep (d_model, lr) has
# no entry. tests/cli/test_knobs.py checks the entries against the tasks' parameters.
KNOBS: dict[str, Knob] = {
    "pe": Knob((TRANSFORMER,), paper="sinusoidal", name_form={TRANSFORMER: "{}"}),
    "norm": Knob((TRANSFORMER,), paper="layernorm", name_form={TRANSFORMER: "{}"}),
    "norm_position": Knob((TRANSFORMER,), paper="post", name_form={TRANSFORMER: "{}"}),
    "n_heads": Knob((TRANSFORMER,), paper=8, name_form={TRANSFORMER: "h{}"}),
    "activation": Knob((TRANSFORMER,), paper="relu"),
    "bias": Knob((TRANSFORMER,), paper=True),
    "rope_theta": Knob((TRANSFORMER,), read_under=("pe", ("rope",))),
    **dict.fromkeys(
        ("d_ff", "activation_dropout", "attention_dropout", "max_len", "scale_embedding", "vocab_multiple",
         "n_kv_heads", "norm_eps", "token_types", "embedding_norm", "output_bias"),
        _TRANSFORMER,
    ),  # fmt: skip
    "architecture": Knob(name_form={RNN: "{}"}),
    "rnn_cell": Knob((RNN,), name_form={RNN: "{}"}),
    "rnn_attention": Knob((RNN,), name_form={RNN: "{}"}),
    "bidirectional": Knob((RNN,), recurrent_unused_by=("LanguageModelTask",)),
    **dict.fromkeys(("rnn_hidden", "input_feeding", "reverse_source", "teacher_forcing"), _RNN),
    "tie_embeddings": Knob(recurrent_unused_by=("TranslationTask",)),
    "min_lr_ratio": Knob(read_under=("schedule", ("cosine",))),
}


def knobs_of(architecture: str) -> list[str]:
    """The knobs that only ``architecture``'s networks read (``"rnn"``: ``rnn_cell``, ...)."""
    return [name for name, knob in KNOBS.items() if knob.applies_to == (architecture,)]


def name_forms(architecture: str) -> dict[str, str]:
    """The knobs a run name of ``architecture`` holds, in order, each with its form (``{"n_heads": "h{}"}``)."""
    return {name: knob.name_form[architecture] for name, knob in KNOBS.items() if architecture in knob.name_form}


def paper_values() -> dict[str, object]:
    """The base model of Vaswani et al. 2017 as flat config keys: ``{"model.pe": "sinusoidal", ...}``."""
    return {f"model.{name}": knob.paper for name, knob in KNOBS.items() if knob.paper is not NO_VALUE}


def not_applying(task: str, values: Mapping[str, object]) -> dict[str, str]:
    """The knobs among ``values`` (names without ``model.``, with their values) that the task class named ``task``
    (``"TranslationTask"``) does not use, each with the knob whose value leaves it unused: ``architecture`` (a
    knob of the other architecture; a Transformer where ``values`` has no ``architecture``), or the knob of its
    ``read_under`` (``pe`` for ``rope_theta`` unless ``pe`` is rope).

    Example:
        >>> not_applying("TranslationTask", {"architecture": "rnn", "pe": "rope", "d_model": 64, "tie_embeddings": 1})
        {'pe': 'architecture', 'tie_embeddings': 'architecture'}
        >>> not_applying("LanguageModelTask", {"pe": "alibi", "rope_theta": 5e5, "rnn_attention": "dot"})
        {'rnn_attention': 'architecture', 'rope_theta': 'pe'}
    """
    architecture = values.get("architecture", TRANSFORMER)
    known = {name: KNOBS[name] for name in values if name in KNOBS}
    found = {
        name: "architecture"
        for name, knob in known.items()
        if architecture not in knob.applies_to or (architecture == RNN and task in knob.recurrent_unused_by)
    }
    for name, knob in known.items():
        other, readers = knob.read_under or (None, ())
        if name not in found and other in values and values[other] not in readers:
            found[name] = other
    return found
