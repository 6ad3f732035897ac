"""``python -m zoo import SOURCE --out DIR``: a Hugging Face model folder (or hub id, online) of the GPT-2,
BERT, Llama or Marian family written as a zoo run folder: ``config.yaml`` with the knobs that reproduce the
architecture and ``checkpoints/imported.ckpt`` with the weights and the checkpoint's own tokenizer, in zoo's
id order (:mod:`zoo.weights.vocabulary`), on which ``generate``, ``translate``, ``attention``, ``validate``,
``test`` and ``predict`` work as on any zoo run. A decoder becomes a language model, an encoder a classifier
pooling the first token (BERT's ``[CLS]``, through its pooler where the folder has one) with the folder's
classifier where it has one of ``--num_classes`` labels, else a new head; an encoder-decoder a translation model.
Every tensor is accounted for: read, refused in one line (:func:`zoo.weights.convert.head_tensors`), or, a head's
with no counterpart, named in the line and recorded in the checkpoint (``zoo_imported``). Every check runs
before anything is written."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from zoo.inference.command import OneLineParser, main_of
from zoo.inference.errors import InferenceError
from zoo.weights.errors import WeightsError
from zoo.weights.export import check_out

TASKS = {  # backbone -> the task, its data module, and the name its data module gives its tokenizer
    "decoder_only": ("zoo.tasks.LanguageModelTask", "zoo.data.LanguageModelDataModule", "text"),
    "encoder_only": ("zoo.tasks.ClassificationTask", "zoo.data.ClassificationDataModule", "text"),
    "encoder_decoder": ("zoo.tasks.TranslationTask", "zoo.data.TranslationDataModule", "joint"),
}


POOLINGS = ("cls", "mean")


def arguments():
    p = OneLineParser(prog="python -m zoo import", description="Import a Hugging Face model as a zoo run folder.")
    p.add_argument("source", metavar="SOURCE", help="a Hugging Face model folder, or a hub id (online)")
    p.add_argument("--out", required=True, help="the new run folder (config.yaml, checkpoints/imported.ckpt)")
    p.add_argument(
        "--num_classes",
        type=int,
        help="labels of an encoder's classifier (default: its classifier's in the folder, else 2)",
    )
    p.add_argument(
        "--pooling",
        choices=POOLINGS,
        help="an encoder's pooling: cls ([CLS] through BERT's pooler where the folder has one; exports as "
        "BertForSequenceClassification) or mean (of the token states); default: a sentence-transformers folder's "
        "modules.json's, else cls",
    )
    return p


def class_of(path: str):
    module, _, name = path.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


def task_of(knobs: dict, vocabulary, backbone: str, head_knobs: dict):
    """The zoo task of the imported backbone, its vocabulary in zoo's order (extra rows: a logits bias), and the
    knobs of its heads (:meth:`zoo.weights.family.Family.head_knobs`)."""
    task_class = class_of(TASKS[backbone][0])
    accepted = set(inspect.signature(task_class.__init__).parameters)
    accepted |= set(inspect.signature(class_of("zoo.tasks.base.TaskModule").__init__).parameters)
    hparams = {name: value for name, value in knobs.items() if name in accepted}
    has_logits = backbone != "encoder_only"  # extra rows of an encoder are only looked up, never predicted
    hparams.update(
        vocab_size=vocabulary.size, output_bias=knobs["output_bias"] or (has_logits and bool(vocabulary.extra))
    )
    return task_class(**hparams, **head_knobs)


def take_heads(task, family, heads: dict) -> list[str]:
    """Load into ``task`` each head parameter the folder has at the task's shape (``family.head_rules``); the
    names of the heads' tensors not taken back, sorted."""
    own = task.state_dict()
    taken = {}
    for rule in family.head_rules(dict(task.hparams)):
        if all(name in heads for name in rule.hf) and rule.to_zoo(heads).shape == own[rule.zoo].shape:
            taken[rule.zoo] = rule.to_zoo(heads)
    task.load_state_dict({**own, **taken})
    used = {name for rule in family.head_rules(dict(task.hparams)) if rule.zoo in taken for name in rule.hf}
    return sorted(set(heads) - used)


def left_out_line(left: list[str]) -> str:
    """``; not imported: a, b ... (N tensors or modules of heads zoo's task does not use)``, or nothing."""
    if not left:
        return ""
    shown = ", ".join(left[:4]) + (f" and {len(left) - 4} more" if len(left) > 4 else "")
    return f"; not imported: {shown} ({len(left)} tensors or modules of heads zoo's task does not use)"


def zoo_state(network_state: dict, vocabulary, output_bias: bool) -> dict:
    """The backbone's parameters with their vocabulary rows in zoo's order, and the logits bias (the
    checkpoint's, ``EXTRA_LOGIT`` at extra rows) where the task has one (``output_bias``)."""
    from zoo.weights.vocabulary import VOCABULARY_ROWS

    state = {name: vocabulary.rows_of(t) if name in VOCABULARY_ROWS else t for name, t in network_state.items()}
    if output_bias:
        state["output.linear.bias"] = vocabulary.logits_bias(network_state.get("output.linear.bias"))
    return state


def read_tokenizer(folder: Path) -> str:
    path = folder / "tokenizer.json"
    if not path.is_file():
        raise WeightsError(
            f"{str(folder)!r} has no tokenizer.json (nor Marian's source.spm and target.spm); convert a "
            f"SentencePiece-only folder with transformers' AutoTokenizer.from_pretrained(...).save_pretrained(...) "
            f"(its fast tokenizer) first"
        )
    from tokenizers import Tokenizer

    from zoo.weights.folder import read_json

    text = json.dumps(read_json(path), ensure_ascii=False)
    try:
        Tokenizer.from_str(text)
    except Exception as error:  # the library's own reason, whatever its type
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise WeightsError(f"{str(path)!r} is no tokenizer the tokenizers library reads: {reason}") from None
    return text


def tokenizers_of(folder: Path, knobs: dict, backbone: str) -> tuple:
    """The vocabulary in zoo's order, the tokenizers in zoo's ids (name -> ``tokenizer.json``), what export
    needs of the checkpoint's own tokenizer, and a note for the import line: from ``tokenizer.json``, or from
    Marian's hub layout (:mod:`zoo.weights.marian_hub`)."""
    from zoo.weights import marian_hub
    from zoo.weights.vocabulary import Vocabulary, permuted_tokenizer, tokenizer_roles

    if backbone == "encoder_decoder" and marian_hub.is_hub_layout(folder):
        vocab = marian_hub.hub_vocab(folder, knobs["vocab_size"])
        vocabulary = Vocabulary.of(marian_hub.hub_roles(vocab, knobs), knobs["vocab_size"])
        tokenizers, lacking = marian_hub.hub_tokenizers(folder, vocab, vocabulary)
        note = f"; {lacking} SentencePiece pieces have no row in vocab.json: a source reads them as <unk>"
        return vocabulary, tokenizers, {"tokenizer_files": marian_hub.hub_files(folder)}, note * bool(lacking)
    tokenizer = read_tokenizer(folder)
    vocabulary = Vocabulary.of(tokenizer_roles(json.loads(tokenizer), knobs), knobs["vocab_size"])
    name = TASKS[backbone][2]
    return vocabulary, {name: permuted_tokenizer(tokenizer, vocabulary)}, {"tokenizer": tokenizer}, ""


def run(argv: list[str]) -> None:
    args = arguments().parse_args(argv)
    if args.num_classes is not None and args.num_classes < 2:
        raise InferenceError(f"--num_classes={args.num_classes} is not valid; it must be at least 2")
    out = check_out(args.out)
    try:
        written = import_to(args.source, out, args.num_classes, args.pooling)
    except WeightsError as error:
        raise InferenceError(str(error)) from None
    print(f"imported {args.source} ({written}) into {out}: config.yaml, checkpoints/imported.ckpt")


def import_to(source: str, out: Path, num_classes: int | None, pooling: str | None = None) -> str:
    """Write the run folder ``out`` of ``source`` (an encoder pooled by ``pooling``, ``None``: as the folder
    says); what was imported, in words, back."""
    from zoo.weights.convert import family_of, head_tensors, import_backbone, knobs_of
    from zoo.weights.folder import local_folder, read_config, read_weights

    folder = local_folder(source)
    hf_config = read_config(folder)
    family = family_of(hf_config)
    for option, value in (("num_classes", num_classes), ("pooling", pooling)):
        if value is not None and family.backbone != "encoder_only":
            raise WeightsError(
                f"--{option}={value} is for an encoder's classifier, but {source!r} is a {family.architecture}, "
                f"which becomes a {TASKS[family.backbone][0].rpartition('.')[2]}; leave it out"
            )
    knobs = knobs_of(family, hf_config)
    vocabulary, tokenizers, own_tokenizer, note = tokenizers_of(folder, knobs, family.backbone)
    weights = read_weights(folder)
    network, knobs, family = import_backbone(hf_config, weights)
    heads = head_tensors(weights, family, knobs)
    head_knobs, pooled = family.head_knobs(heads, num_classes), pooling_of(folder, family.backbone, pooling)
    task = task_of(knobs, vocabulary, family.backbone, head_knobs | (pooled or ({}, []))[0])
    task.network.load_state_dict(zoo_state(network.state_dict(), vocabulary, task.hparams.output_bias))
    left = take_heads(task, family, heads)
    framing = framing_of(next(iter(tokenizers.values())))
    left += [] if pooled is None else pooled[1]  # the sentence embedding's modules after its pooling
    record = {"source": source, "architecture": family.architecture, "not_imported": left, "framing": framing}
    # what export needs to write the model back in the checkpoint's own ids, for its own tokenizer
    record["vocabulary"] = {"rows": vocabulary.rows, "extra": vocabulary.extra, "size": knobs["vocab_size"]}
    record |= own_tokenizer
    record["special_ids"] = {role: knobs.get(role) for role in ("pad_id", "bos_id", "eos_id")}
    write_run(out, task, family.backbone, tokenizers, record)
    said = "as --pooling says" if pooling else "as its modules.json says"
    pooling = "" if pooled is None else f", pooling {task.hparams.pooling} {said}"
    heads_line = f"{pooling}{heads_taken(task, heads, left)}"
    return f"{family.architecture}{heads_line}; framing {framing}{note}{left_out_line(left)}"


def pooling_of(folder: Path, backbone: str, asked: str | None) -> tuple[dict, list[str]] | None:
    """An encoder's pooling knobs, ``asked`` (``cls``: the family's, through BERT's pooler where the folder has
    one; ``mean``: no pooler) or as its sentence-transformers ``modules.json`` says (:mod:`zoo.weights.sentence_
    transformers`), with the folder's modules after its pooling; ``None`` for the family's own pooling."""
    from zoo.weights.sentence_transformers import pooling_knobs, sentence_pooling

    found = sentence_pooling(folder, asked) if backbone == "encoder_only" else None
    if asked is None or found is not None:
        return found
    return pooling_knobs(asked), []


def framing_of(tokenizer_json: str) -> str:
    """``[CLS] text [SEP]``: the template the imported tokenizer frames a text with; ``text`` where it adds no
    token, and zoo's tasks frame as they do for its own tokenizers (:mod:`zoo.data.framing`)."""
    from tokenizers import Tokenizer

    from zoo.data.framing import template_of

    tokenizer = Tokenizer.from_str(tokenizer_json)
    template = template_of(tokenizer)
    return "text (the tokenizer adds no token)" if template is None else template.describe(tokenizer)


def heads_taken(task, heads: dict, left: list[str]) -> str:
    """`` with its pooler and its classifier (2 labels)``, or `` with a new classifier (2 labels)`` where the
    folder's was not taken; nothing for a task whose head is the backbone's output layer."""
    if "head.1.weight" not in task.state_dict():
        return ""
    taken = [part for part in ("pooler", "classifier") if any(n.startswith(f"{part}.") for n in set(heads) - set(left))]
    parts = [f"its {part}" for part in taken] + ([] if "classifier" in taken else ["a new classifier"])
    return f", with {' and '.join(parts)} ({task.hparams.num_classes} labels)"


def write_run(out: Path, task, backbone: str, tokenizers: dict[str, str], imported: dict) -> None:
    """``config.yaml`` and ``checkpoints/imported.ckpt`` (as Lightning writes one, at step 0) into ``out``."""
    import lightning
    import torch
    import yaml

    task_path, data_path, _ = TASKS[backbone]
    hparams = {k: v for k, v in dict(task.hparams).items() if k != "vocab_size"}
    (out / "checkpoints").mkdir(parents=True)
    checkpoint = {
        "state_dict": task.state_dict(),
        "hyper_parameters": {**dict(task.hparams), "_class_path": task_path},
        "pytorch-lightning_version": lightning.__version__,
        "epoch": 0,
        "global_step": 0,
        data_path.rpartition(".")[2]: {"tokenizers": tokenizers},
        "zoo_imported": imported,
    }
    torch.save(checkpoint, out / "checkpoints" / "imported.ckpt")
    data = {"class_path": data_path} | ({"init_args": {"joint_vocabulary": False}} if "src" in tokenizers else {})
    config = {"model": {"class_path": task_path, "init_args": hparams}, "data": data}
    (out / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


main = main_of("import", run)
