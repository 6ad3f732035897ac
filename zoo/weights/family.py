"""What every family shares: the zoo knobs it fixes, the ones read from ``config.json``, the activations'
names, and the checks that refuse a setting zoo has no counterpart for, in one line naming it."""

from __future__ import annotations

from typing import ClassVar

from zoo.weights.errors import WeightsError
from zoo.weights.rules import Rule

# Hugging Face's activation names (transformers.activations.ACT2FN) -> zoo's model.activation
ACTIVATIONS = {
    "relu": "relu",
    "gelu": "gelu",
    "gelu_new": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "silu": "silu",
    "swish": "silu",
}
HF_ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_tanh": "gelu_new", "silu": "silu"}
# Every knob zoo's backbones have besides sizes; a family fixes them all, or reads them from config.json.
COMMON = {"n_kv_heads": None, "token_types": 0, "embedding_norm": False, "output_bias": False, "vocab_multiple": 1}


def attention_dropout(knobs: dict) -> float:
    """The dropout on the attention weights of ``knobs``: ``attention_dropout``, else ``dropout``."""
    return knobs["dropout"] if knobs.get("attention_dropout") is None else knobs["attention_dropout"]


def activation(hf: dict, key: str) -> str:
    """zoo's name of the activation ``hf[key]``.

    Raises:
        WeightsError: for an activation zoo does not have.
    """
    name = hf.get(key)
    if name not in ACTIVATIONS:
        raise WeightsError(
            f"config.json's {key}={name!r} has no zoo counterpart; zoo has {', '.join(sorted(ACTIVATIONS))}"
        )
    return ACTIVATIONS[name]


def require(hf: dict, key: str, valid: tuple, default: object = None) -> None:
    """Refuse ``hf[key]`` (``default`` when absent) unless it is one of ``valid``.

    Raises:
        WeightsError: ``config.json's <key>=<value> has no zoo counterpart (zoo: <valid>)``.
    """
    value = hf.get(key, default)
    if value not in valid:
        shown = " or ".join(repr(v) for v in valid)
        raise WeightsError(f"config.json's {key}={value!r} has no zoo counterpart (zoo supports {shown})")


class Family:
    """One Hugging Face architecture: ``model_type`` (``config.json``'s), the zoo ``backbone`` it maps to
    (``decoder_only``, ``encoder_only`` or ``encoder_decoder``), the knobs it ``fixed`` (``activations``: those
    it may have), how the others are read from ``config.json`` (:meth:`knobs`), the parameters' :meth:`rules`,
    and the ``config.json`` of a zoo model for export (:meth:`hf_config`)."""

    model_type: ClassVar[str]
    backbone: ClassVar[str]
    architecture: ClassVar[str]  # the class that config.json's "architectures" names, for export
    classifier: ClassVar[str | None] = None  # the family's sequence classifier, ``prefix`` before its backbone
    classifier_knobs: ClassVar[dict] = {}  # the zoo classifier's knobs it computes as
    fixed: ClassVar[dict]
    prefix: ClassVar[str]  # of the backbone's parameters in the model with a head (``transformer.``)
    export_prefix: ClassVar[str | None] = None  # in the architecture exported; None: ``prefix``
    # a tied parameter's other names, any of which a checkpoint may keep (save_pretrained keeps one of them)
    aliases: ClassVar[dict[str, tuple[str, ...]]] = {}
    activations: ClassVar[tuple[str, ...]] = tuple(HF_ACTIVATIONS)
    # names (after ``prefix``) of tensors that are not weights, skipped quietly: GPT-2's causal masks
    buffers: ClassVar[tuple[str, ...]] = ()
    # names (after ``prefix``) starting a head's tensors outside the backbone (BERT's pooler, MLM and
    # classifier heads): each is taken by the task where it has a counterpart, else named in the import line
    heads: ClassVar[tuple[str, ...]] = ()

    def knobs(self, hf: dict) -> dict:
        """zoo's knobs (``TransformerConfig``'s, the depth, embeddings' tying, vocabulary and special ids) of
        the model ``config.json`` describes.

        Raises:
            WeightsError: naming a setting with no zoo counterpart.
        """
        raise NotImplementedError

    def rules(self, knobs: dict) -> list[Rule]:
        """How each parameter of the zoo backbone of ``knobs`` is made of the family's."""
        raise NotImplementedError

    def hf_config(self, knobs: dict) -> dict:
        """The family's ``config.json`` of a zoo model with ``knobs`` (that :meth:`mismatches` accepts)."""
        raise NotImplementedError

    def head_knobs(self, heads: dict, num_classes: int | None) -> dict:
        """The task's knobs of the heads a folder has (``heads``: :func:`zoo.weights.convert.head_tensors`), with
        ``num_classes`` for a classifier (``None``: the folder's head's labels); none for a language model or a
        translation model, whose head is the backbone's output layer."""
        return {}

    def head_rules(self, knobs: dict) -> list[Rule]:
        """How the task's parameters outside its network (``pooler.0.weight``, ``head.1.weight``) are made of
        the heads' tensors; the import takes each whose tensors the folder has, at the task's shape."""
        return []

    def export_extras(self, knobs: dict) -> dict:
        """Parameters the family's architecture has and the zoo model lacks, with the values that make them
        no-ops (BERT's token types of a model without them: one row of zeros), by their exported names."""
        return {}

    def mismatches(self, knobs: dict) -> list[str]:
        """``knob=value`` for each knob of a zoo model that this family cannot express (none: it can)."""
        wrong = [f"{name}={knobs.get(name)!r}" for name, value in self.fixed.items() if knobs.get(name) != value]
        if knobs.get("activation") not in self.activations:
            wrong.append(f"activation={knobs.get('activation')!r}")
        return wrong


def special_ids(hf: dict, pad_fallback: str = "eos_token_id") -> dict:
    """The special ids of ``config.json``: ``bos_id``, ``eos_id`` and ``pad_id`` (``pad_fallback``'s id where
    the family has no padding token, as GPT-2 and Llama: its rows are still trained, zoo's padding row only has
    no gradient).

    Raises:
        WeightsError: for a special id that is not one integer (Llama 3's two end ids, ``[128001, 128009]``):
            zoo's decoding ends at one end id.
    """
    for key in ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id"):
        value = hf.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise WeightsError(
                f"config.json's {key}={value!r} is not one token id, and zoo starts, ends and pads with one id "
                f"each; write the one id to use in config.json to import it"
            )
    pad = hf.get("pad_token_id")
    return {
        "bos_id": hf.get("bos_token_id"),
        "eos_id": hf.get("eos_token_id"),
        "pad_id": hf.get(pad_fallback) if pad is None else pad,
    }
