"""``python -m zoo export --ckpt_path CKPT --out DIR``: a zoo model whose knobs match a Hugging Face architecture
(GPT-2, Llama, BERT, Marian) written as that architecture's folder: ``config.json``, ``model.safetensors`` and
the run's ``tokenizer.json``, which ``transformers``' ``AutoModel*.from_pretrained(DIR)`` loads with equal
logits. A classifier exports as the family's sequence-classification architecture (BERT's
``BertForSequenceClassification``) where its head is that architecture's, else as the backbone with a line
saying its head is not in the folder. A model no architecture matches (a recurrent one, knobs without a
counterpart) is refused in one line, and nothing is written."""

from __future__ import annotations

import json
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


def run(argv: list[str]) -> None:
    """Check the arguments, load the checkpoint, match an architecture, then write the folder."""
    args = arguments().parse_args(argv)
    check_checkpoint(args.ckpt_path)
    out = check_out(args.out)
    from zoo.inference.checkpoint import load_trained
    from zoo.weights.convert import export_state, matching_family
    from zoo.weights.exported_files import generation_config, tokenizer_files
    from zoo.weights.folder import write_folder

    trained = load_trained(args.ckpt_path, "cpu" if args.device is None else args.device)
    network = trained.task.network.cpu()
    knobs = export_knobs(trained.task)
    try:
        family = matching_family(backbone_of(network), knobs)
        architecture, state, extra, note = with_head(trained.task, knobs, family, export_state(network, knobs, family))
    except WeightsError as error:
        raise InferenceError(str(error)) from None
    tokenizer = trained.tokenizers.get("joint") or trained.tokenizers.get("text")
    files = {} if tokenizer is None else tokenizer_files(tokenizer, family.backbone)
    decoding = generation_config(dict(trained.task.hparams), family.backbone)
    if decoding is not None:
        files["generation_config.json"] = json.dumps(decoding, indent=2) + "\n"
    write_folder(out, {**family.hf_config(knobs), **extra}, state, files)
    print(f"wrote {architecture} to {out} (config.json, model.safetensors, {', '.join(files)}){note}")


main = main_of("export", run)
