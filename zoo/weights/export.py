"""``python -m zoo export --ckpt_path CKPT --out DIR``: a zoo model whose knobs match a Hugging Face architecture
(GPT-2, Llama, BERT, Marian) written as that architecture's folder: ``config.json``, ``model.safetensors`` and
the run's ``tokenizer.json``, which ``transformers``' ``AutoModel*.from_pretrained(DIR)`` loads with equal
logits. A classifier exports as the family's sequence-classification architecture (BERT's
``BertForSequenceClassification``) where its head is that architecture's, else as the backbone with a line
saying its head is not in the folder. A model no architecture matches (a recurrent one, knobs without a
counterpart) is refused in one line, and nothing is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

from zoo.inference.command import check_checkpoint, main_of, parser
from zoo.inference.errors import InferenceError
from zoo.weights.errors import WeightsError

BACKBONES = {"DecoderOnly": "decoder_only", "EncoderOnly": "encoder_only", "EncoderDecoder": "encoder_decoder"}


def arguments():
    p = parser("export", "Write a zoo model as the Hugging Face model folder of the architecture its knobs match.")
    p.add_argument("--out", required=True, help="a new folder for config.json, model.safetensors, tokenizer.json")
    return p


def check_out(out: str) -> Path:
    """``--out`` as a path, if it is new or an empty folder (nothing there is overwritten).

    Raises:
        InferenceError: naming ``--out`` if it is a file or a folder with files.
    """
    path = Path(out).expanduser()
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        what = "a file" if not path.is_dir() else "a folder with files"
        raise InferenceError(f"--out={out!r} is {what}; name a new folder (nothing there is overwritten)")
    above = next(parent for parent in path.absolute().parents if parent.exists())
    if not path.exists() and (not above.is_dir() or not os.access(above, os.W_OK | os.X_OK)):
        why = "a file" if not above.is_dir() else "a folder this user cannot write"
        raise InferenceError(f"--out={out!r} is under {str(above)!r}, {why}; name a new folder elsewhere")
    return path


def export_knobs(task) -> dict:
    """The knobs of a trained task with the special ids of zoo's tokenizers (zoo.data.tokenizer)."""
    from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID

    return {**dict(task.hparams), "pad_id": PAD_ID, "bos_id": BOS_ID, "eos_id": EOS_ID}


def backbone_of(network) -> str:
    """``decoder_only``, ``encoder_only`` or ``encoder_decoder``, the Transformer ``network`` is.

    Raises:
        WeightsError: for a recurrent network, which no family exported has.
    """
    name = type(network).__name__
    if name not in BACKBONES:
        raise WeightsError(
            f"this checkpoint is a {name} (model.architecture=rnn); export writes Transformers of the GPT-2, Llama, "
            f"BERT and Marian architectures, none of them recurrent"
        )
    return BACKBONES[name]


def with_head(task, knobs: dict, family, state: dict) -> tuple[str, dict, dict, str]:
    """The architecture, parameters, ``config.json`` additions and a note of a task's export: a classifier with
    the knobs of the family's sequence classifier (``family.classifier_knobs``) as that classifier, head
    included (``family.head_rules``); any other as the backbone, the note saying the head is left out."""
    head = {name: t for name, t in task.state_dict().items() if not name.startswith("network.")}
    if "head.1.weight" not in head:
        return family.architecture, state, {}, ""
    wanted = family.classifier_knobs
    differ = {name: task.hparams.get(name) for name, value in wanted.items() if task.hparams.get(name) != value}
    if not family.classifier or differ:
        seen = ", ".join(f"model.{name}={value}" for name, value in differ.items())
        needs = ", ".join(f"model.{name}={wanted[name]}" for name in differ)
        why = f"{family.classifier} needs {needs}; this model has {seen}" if family.classifier else "no classifier"
        return family.architecture, state, {}, f"; the classifier's head is not in the folder ({why})"
    out = {family.prefix + name: t for name, t in state.items()}
    for rule in family.head_rules(dict(task.hparams)):
        out |= {name: t.detach().clone().contiguous() for name, t in rule.to_hf(head[rule.zoo]).items()}
    labels = {str(i): f"LABEL_{i}" for i in range(task.hparams.num_classes)}
    return family.classifier, out, {"architectures": [family.classifier], "id2label": labels}, ""


def in_checkpoint_ids(state: dict, knobs: dict, imported: dict, family) -> tuple[dict, dict, dict]:
    """An imported model's parameters, knobs and ids back in its checkpoint's own ids (``imported``: what
    ``zoo import`` recorded): the vocabulary rows in the checkpoint's order, the extra rows dropped, and the logits
    bias with them where the family has none and the import's is untouched (zero at every real row); the
    special ids the checkpoint's; ``ids`` maps zoo's special ids to the checkpoint's."""
    from zoo.weights.vocabulary import VOCABULARY_ROWS, Vocabulary

    vocabulary = Vocabulary(imported["vocabulary"]["rows"], imported["vocabulary"]["extra"])
    state = {name: vocabulary.checkpoint_rows(t) if name in VOCABULARY_ROWS else t for name, t in state.items()}
    knobs = {**knobs, **imported["special_ids"], "vocab_size": imported["vocabulary"]["size"]}
    bias = state.get("output.linear.bias")
    if bias is not None:
        state["output.linear.bias"] = bias = vocabulary.checkpoint_rows(bias)
        if family.fixed.get("output_bias") is False and not bias.any():
            del state["output.linear.bias"]
            knobs["output_bias"] = False
    return state, knobs, {z: vocabulary.checkpoint_id(z) for z in (0, 1, 2, 3)}


def run(argv: list[str]) -> None:
    """Check the arguments, load the checkpoint, match an architecture, then write the folder."""
    args = arguments().parse_args(argv)
    check_checkpoint(args.ckpt_path)
    out = check_out(args.out)
    from zoo.inference.checkpoint import load_trained, read_checkpoint
    from zoo.weights.convert import export_state
    from zoo.weights.exported_files import generation_config
    from zoo.weights.folder import write_folder

    trained = load_trained(args.ckpt_path, "cpu" if args.device is None else args.device)
    network = trained.task.network.cpu()
    imported = read_checkpoint(args.ckpt_path).get("zoo_imported") or {}
    try:
        family, state, knobs, ids = exported_parameters(trained.task, network, imported)
        architecture, state, extra, note = with_head(trained.task, knobs, family, export_state(state, knobs, family))
    except WeightsError as error:
        raise InferenceError(str(error)) from None
    files = tokenizer_of(trained, family, imported, ids)
    decoding = generation_config(dict(trained.task.hparams), family.backbone, ids)
    if decoding is not None:
        files["generation_config.json"] = json.dumps(decoding, indent=2) + "\n"
    write_folder(out, {**family.hf_config(knobs), **extra}, state, files)
    where = "the checkpoint's own ids" if "vocabulary" in imported else "zoo's ids"
    print(f"wrote {architecture} to {out} (config.json, model.safetensors, {', '.join(files)}; {where}){note}")


def exported_parameters(task, network, imported: dict):
    """The family, the backbone's parameters, the knobs and zoo's special ids -> the folder's, of an export: in
    the checkpoint's own ids for a model ``zoo import`` made (:func:`in_checkpoint_ids`), else in zoo's."""
    from zoo.weights.convert import FAMILIES, matching_family

    backbone, state, knobs = backbone_of(network), network.state_dict(), export_knobs(task)
    if "vocabulary" not in imported:
        return matching_family(backbone, knobs), state, knobs, None
    (origin,) = (family for family in FAMILIES.values() if family.architecture == imported["architecture"])
    state, knobs, ids = in_checkpoint_ids(state, knobs, imported, origin)
    return matching_family(backbone, knobs), state, knobs, ids


def tokenizer_of(trained, family, imported: dict, ids: dict | None) -> dict[str, str | bytes]:
    """The tokenizer's files: the checkpoint's own tokenizer for an imported model (its files as they were,
    for Marian's hub layout), else the run's."""
    from tokenizers import Tokenizer

    from zoo.weights.exported_files import tokenizer_files

    if "tokenizer_files" in imported:
        return dict(imported["tokenizer_files"])
    if "tokenizer" in imported:
        return tokenizer_files(Tokenizer.from_str(imported["tokenizer"]), family.backbone, ids)
    tokenizer = trained.tokenizers.get("joint") or trained.tokenizers.get("text")
    return {} if tokenizer is None else tokenizer_files(tokenizer, family.backbone)


main = main_of("export", run)
