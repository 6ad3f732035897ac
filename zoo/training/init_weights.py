"""``fit --init_weights CKPT``: a new run that starts from a checkpoint's weights (fine-tuning an imported
Hugging Face model, ``python -m zoo import``, or any zoo run's checkpoint), not a resume: the step, optimiser and
schedule start afresh, the data is read with the checkpoint's own tokenizer, and the weights are loaded into the
new run's model. A weight the new model has at another shape (a knob of the command line that changes it) is
refused in one line before training; a weight the checkpoint lacks (a task head it has no counterpart for) is
said in one line and keeps its fresh initialisation, and a weight of the checkpoint the new model has no place
for (``--model.output_bias=false`` on a checkpoint with a logits bias) is said in the same line and left out. A
checkpoint of another task is refused in one line: its weights would fill the embeddings alone."""

from __future__ import annotations

from dataclasses import dataclass, field

FIELD = "init_weights"


def init_checkpoint(path: str) -> dict:
    """The checkpoint at ``path``, checked as every checkpoint a command reads is.

    Raises:
        zoo.runs.checkpoint_file.CheckpointFileError: one line naming ``init_weights`` and the file.
    """
    from zoo.runs.checkpoint_file import CheckpointFileError, check_is_file, load_checkpoint

    check_is_file(path, FIELD)
    try:
        return load_checkpoint(path)  # memory-mapped, once for the tokenizers and the weights
    except CheckpointFileError as error:  # it names the field ckpt_path
        raise CheckpointFileError(str(error).replace("ckpt_path=", f"{FIELD}=", 1)) from None


def init_tokenizers(path: str, task: str, architecture: str) -> dict[str, str]:
    """The tokenizers (name -> JSON) that the data of a run of the task ``task`` (a class path) and
    ``model.architecture`` started from ``path`` is read with.

    Raises:
        ValueError: in one line naming ``init_weights``, for a checkpoint of another task (whose weights would
            fill no more than the embeddings of this one, and whose tokenizers fit another data module) or
            architecture, or one with no tokenizers.
    """
    from zoo.data.tokenizer import checkpoint_tokenizers
    from zoo.runs.checkpoint_file import import_class

    checkpoint = init_checkpoint(path)
    saved = checkpoint.get("hyper_parameters", {})
    trained = saved.get("_class_path")
    if trained is not None and import_class(trained) is not import_class(task):
        raise ValueError(
            f"{FIELD}={path!r} holds a {trained.rpartition('.')[2]}, not a {task.rpartition('.')[2]}: start from a "
            f"checkpoint of this task (a run of its, or one `python -m zoo import` wrote for it)"
        )
    if saved.get("architecture", "transformer") != architecture:
        raise ValueError(
            f"{FIELD}={path!r} holds a network of model.architecture={saved.get('architecture')!r}, not "
            f"{architecture!r}: start from a checkpoint of this architecture, or set model.architecture to its"
        )
    tokenizers = checkpoint_tokenizers(checkpoint)
    if not tokenizers:
        raise ValueError(f"{FIELD}={path!r} holds no tokenizer, which the new run must read its data with")
    return tokenizers


@dataclass
class Loaded:
    """What :func:`load_init_weights` did: ``fresh``, the model's weights the checkpoint has none of (kept as
    initialised: a new task head); ``unused``, the checkpoint's weights the model has no place for (left out)."""

    fresh: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)


def load_init_weights(model, path: str) -> Loaded:
    """Load the weights of the checkpoint at ``path`` into ``model`` (a :class:`zoo.tasks.TaskModule`), and say
    which of the model's are new and which of the checkpoint's have no place in it (:class:`Loaded`).

    Raises:
        ValueError: in one line, each weight whose shape differs between the checkpoint and ``model`` (a knob
            such as ``model.d_model`` or ``model.num_classes`` set otherwise than the checkpoint's), or a
            checkpoint none of whose weights ``model`` has (another task or backbone).
    """
    weights = init_checkpoint(path)["state_dict"]
    own = model.state_dict()
    differ = [
        f"{name} {tuple(weights[name].shape)} in the checkpoint, {tuple(tensor.shape)} here"
        for name, tensor in own.items()
        if name in weights and weights[name].shape != tensor.shape
    ]
    if differ:
        raise ValueError(
            f"{FIELD}={path!r} does not fit this model: {'; '.join(differ)}; give the knobs the checkpoint was "
            f"made with (its run's config.yaml, or the folder's that `python -m zoo import` wrote)"
        )
    shared = {name: weights[name] for name in own if name in weights}
    if not shared:
        raise ValueError(f"{FIELD}={path!r} has none of this model's weights (another task or backbone)")
    model.load_state_dict(shared, strict=False)
    return Loaded([name for name in own if name not in weights], [name for name in weights if name not in own])


def new_weights_line(path: str, loaded: Loaded, tokenizer: str, vocab_size: int) -> str:
    """The line said before training about the weights started from ``path``: which are new, which of the
    checkpoint's are left out, and that the data's ``tokenizer`` and ``vocab_size`` (as configured) give way to
    the checkpoint's tokenizer."""
    said = [] if loaded.fresh else ["every weight of this model from it"]
    if loaded.fresh:
        said.append(f"the checkpoint has no {', '.join(loaded.fresh)}, initialised afresh")
    if loaded.unused:
        said.append(f"this model has no place for the checkpoint's {', '.join(loaded.unused)}, left out")
    weights = "; ".join(said)
    return (
        f"zoo: the run starts from the weights of {path} (a new run, not a resume; {weights}) and reads its data "
        f"with their tokenizer: data.tokenizer={tokenizer!r} and data.vocab_size={vocab_size} are not used"
    )
