"""A zoo backbone from a Hugging Face family's parameters and ``config.json``, and back."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from zoo.nn import DecoderOnly, EncoderDecoder, EncoderOnly, TransformerConfig
from zoo.weights.bert import BERT
from zoo.weights.errors import WeightsError
from zoo.weights.family import Family
from zoo.weights.folder import local_folder, read_config, read_weights
from zoo.weights.gpt2 import GPT2
from zoo.weights.llama import Llama
from zoo.weights.marian import Marian
from zoo.weights.rules import apply_rules, with_aliases, without_prefix

FAMILIES: dict[str, Family] = {family.model_type: family for family in (GPT2(), BERT(), Llama(), Marian())}
TOP_LEVEL = ("lm_head.", "final_logits_bias")  # parameters of the head, outside the exported prefix


def family_of(hf_config: dict) -> Family:
    """The family of ``config.json``'s ``model_type``.

    Raises:
        WeightsError: for a family zoo does not import, naming those it does.
    """
    model_type = hf_config.get("model_type")
    if model_type not in FAMILIES:
        raise WeightsError(
            f"config.json's model_type={model_type!r} is not a family zoo imports; zoo imports {', '.join(FAMILIES)}"
        )
    return FAMILIES[model_type]


def knobs_of(family: Family, hf_config: dict) -> dict:
    """``family.knobs(hf_config)``, with a setting ``config.json`` lacks said in one line.

    Raises:
        WeightsError: naming the missing setting, or a setting with no zoo counterpart.
    """
    try:
        return family.knobs(hf_config)
    except KeyError as error:
        raise WeightsError(
            f"config.json has no {error.args[0]!r}, which a {family.model_type} model needs: not a complete config"
        ) from None


def build_backbone(backbone: str, knobs: dict) -> nn.Module:
    """The zoo backbone ``backbone`` (``decoder_only``, ``encoder_only``, ``encoder_decoder``) of ``knobs``."""
    config = TransformerConfig.from_knobs(knobs)
    vocab, pad = knobs["vocab_size"], knobs["pad_id"]
    if backbone == "decoder_only":
        return DecoderOnly(config, vocab, knobs["num_layers"], knobs["tie_embeddings"], pad)
    if backbone == "encoder_only":
        return EncoderOnly(config, vocab, knobs["num_layers"], pad)
    layers = (knobs["num_encoder_layers"], knobs["num_decoder_layers"])
    return EncoderDecoder(config, vocab, vocab, *layers, knobs["tie_embeddings"], knobs["share_embeddings"], pad)


def with_shared_names(network: nn.Module, state: dict[str, Tensor]) -> dict[str, Tensor]:
    """``state`` plus every other name of a parameter it holds under one name (a tied output projection, a
    shared embedding), as ``load_state_dict`` wants each name."""
    names: dict[int, list[str]] = {}
    for name, tensor in network.state_dict(keep_vars=True).items():
        names.setdefault(id(tensor), []).append(name)
    full = dict(state)
    for group in names.values():
        given = [name for name in group if name in state]
        for name in group:
            if given and name not in full:
                full[name] = state[given[0]]
    return full


def tied_copies(state: dict[str, Tensor], family: Family, read: set[str]) -> set[str]:
    """The names of ``state`` that hold a tied parameter's other copy (``family.aliases``), each checked equal
    to the copy the backbone reads.

    Raises:
        WeightsError: for a copy that differs (an untied head where ``config.json`` ties it).
    """
    copies = set()
    for name, others in family.aliases.items():
        present = [n for n in (name, *others) if n in state]
        for other in (n for n in present[1:] if n not in read):
            if present[0] in read and not torch.equal(state[other], state[present[0]]):
                raise WeightsError(
                    f"the weights' {other} differs from {present[0]}, which config.json ties it to; zoo's model "
                    f"would use {present[0]} for both"
                )
            copies.add(other)
    return copies


def head_tensors(hf_state: dict[str, Tensor], family: Family, knobs: dict) -> dict[str, Tensor]:
    """The tensors of ``hf_state`` the backbone does not read: those of the heads outside it (``family.heads``),
    by their names without ``family.prefix``, for the task to take or to name; buffers that are not weights
    (``family.buffers``) are left out.

    Raises:
        WeightsError: naming a tensor of the backbone that zoo's model of ``config.json`` has no place for (a
            bias it does not declare, a layer beyond its depth), or a tied copy that differs: imported without
            it, the model would compute otherwise.
    """
    state = without_prefix(hf_state, family.prefix)
    read = {name for rule in family.rules(knobs) for name in rule.hf}
    read |= tied_copies(state, family, read)
    left = {name: t for name, t in state.items() if name not in read and not name.endswith(family.buffers)}
    stray = sorted(name for name in left if not name.startswith(family.heads))
    if stray:
        shown = family.prefix + stray[0] if family.prefix + stray[0] in hf_state else stray[0]
        raise WeightsError(
            f"the weights' {shown} ({len(stray)} such tensor{'s' * (len(stray) > 1)}) has no place in the model "
            f"config.json describes, which zoo would build without it"
        )
    return left


def import_backbone(hf_config: dict, hf_state: dict[str, Tensor]) -> tuple[nn.Module, dict, Family]:
    """The zoo backbone of a Hugging Face model, its knobs and its family; the heads' tensors are left to the
    task (:func:`head_tensors`).

    Raises:
        WeightsError: in one line, for an unsupported family or setting, a parameter missing or of another
            shape than ``config.json`` says, or a tensor the backbone has no place for.
    """
    family = family_of(hf_config)
    knobs = knobs_of(family, hf_config)
    try:
        network = build_backbone(family.backbone, knobs)
    except ValueError as error:
        raise WeightsError(f"config.json describes no model zoo can build: {error}") from None
    rules = family.rules(knobs)
    state = apply_rules(rules, with_aliases(without_prefix(hf_state, family.prefix), family.aliases))
    head_tensors(hf_state, family, knobs)
    full = with_shared_names(network, state)
    expected = network.state_dict()
    for name, tensor in full.items():
        if name in expected and tensor.shape != expected[name].shape:
            raise WeightsError(
                f"the weights' {name} (zoo's name) is {tuple(tensor.shape)}, but config.json makes it "
                f"{tuple(expected[name].shape)}"
            )
    network.load_state_dict(full, strict=True)
    return network, knobs, family


def matching_family(backbone: str, knobs: dict) -> Family:
    """The family whose architecture a zoo model of ``backbone`` and ``knobs`` is.

    Raises:
        WeightsError: naming, for the nearest family, the knobs it has no counterpart for.
    """
    candidates = [family for family in FAMILIES.values() if family.backbone == backbone]
    if not candidates:
        raise WeightsError(f"no Hugging Face family zoo exports has a {backbone} backbone")
    ranked = sorted(candidates, key=lambda family: len(family.mismatches(knobs)))
    wrong = ranked[0].mismatches(knobs)
    if wrong:
        raise WeightsError(
            f"no Hugging Face architecture matches this model: nearest is {ranked[0].model_type} "
            f"({ranked[0].architecture}), which has no counterpart for {', '.join(wrong)}"
        )
    return ranked[0]


def export_state(state: dict[str, Tensor], knobs: dict, family: Family) -> dict[str, Tensor]:
    """The family's parameters (names of its ``architecture``) of a zoo backbone's ``state``, contiguous
    copies."""
    prefix = family.prefix if family.export_prefix is None else family.export_prefix
    out = dict(family.export_extras(knobs))
    for rule in family.rules(knobs):
        for name, tensor in rule.to_hf(state[rule.zoo]).items():
            out[name if name.startswith(TOP_LEVEL) else prefix + name] = tensor.detach().clone().contiguous()
    return out


def import_source(source: str) -> tuple[nn.Module, dict, Family]:
    """The zoo backbone of the Hugging Face folder (or hub id) ``source``, its knobs and family; the family is
    checked before the weights are read.

    Raises:
        WeightsError: in one line (see :func:`import_backbone` and :mod:`zoo.weights.folder`).
    """
    folder = local_folder(source)
    hf_config = read_config(folder)
    knobs_of(family_of(hf_config), hf_config)
    return import_backbone(hf_config, read_weights(folder))
