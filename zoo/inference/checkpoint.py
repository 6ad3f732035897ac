"""A trained model from its checkpoint alone: the task (its class is recorded in the checkpoint) and the
tokenizers, which travel inside every checkpoint (:meth:`zoo.data.base.ZooDataModule.state_dict`)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import torch
from tokenizers import Tokenizer

from zoo.data.tokenizer import checkpoint_tokenizers, load_tokenizer
from zoo.inference.errors import InferenceError  # raised here; callers import it from here too
from zoo.runs.checkpoint_file import CheckpointFileError, read_checkpoint_file
from zoo.tasks import TaskModule


@dataclass
class TrainedModel:
    """A task in eval mode and its tokenizers (``joint``, or ``src`` and ``tgt``, or ``text``)."""

    task: TaskModule
    tokenizers: dict[str, Tokenizer]
    path: str

    @property
    def source_tokenizer(self) -> Tokenizer:
        return self.tokenizers.get("src") or self._only()

    @property
    def target_tokenizer(self) -> Tokenizer:
        return self.tokenizers.get("tgt") or self._only()

    def _only(self) -> Tokenizer:
        return self.tokenizers.get("joint") or next(iter(self.tokenizers.values()))

    def require(self, task: type, command: str) -> None:
        """Raise :class:`InferenceError` unless the model is a ``task``, naming the command for the model it is."""
        if not isinstance(self.task, task):
            held = type(self.task).__name__
            raise InferenceError(
                f"{command} needs a {task.__name__} checkpoint, but ckpt_path={self.path!r} holds a {held}; "
                f"{COMMAND_FOR.get(held, 'use `python -m zoo predict` with the config of its run')}"
            )


# What to run on a checkpoint of each task instead of a command meant for another
COMMAND_FOR = {
    "TranslationTask": "use `python -m zoo translate` for a translation model",
    "LanguageModelTask": "use `python -m zoo generate` for a language model",
    "ClassificationTask": "use `python -m zoo predict --config <its run folder>/config.yaml --ckpt_path ...` "
    "for a classifier",
}


def check_device(device: str) -> None:
    """Raise :class:`InferenceError` in one line for a ``--device`` that torch does not know, or that this
    machine lacks (commands decode on ``cpu``, ``cuda[:N]`` or ``mps``)."""
    try:
        kind = torch.device(device).type
    except RuntimeError:
        raise InferenceError(f"--device={device!r} is not valid; name a device: cpu, cuda, cuda:N or mps") from None
    available = {"cpu": True, "cuda": torch.cuda.is_available(), "mps": torch.backends.mps.is_available()}
    if not available.get(kind, False):
        missing = " (no CUDA GPU)" if kind == "cuda" else ""
        raise InferenceError(f"--device={device!r} is not available here{missing}; use --device cpu")


def read_checkpoint(ckpt_path: str, field: str = "ckpt_path") -> dict:
    """The contents of a zoo checkpoint file, loaded with ``weights_only=True`` onto the CPU.

    Raises:
        InferenceError: in one line naming ``field`` and the file, if it is missing, not a file written by
            ``torch.save`` (empty, truncated, another format), or not a zoo checkpoint
            (:func:`zoo.runs.checkpoint_file.read_checkpoint_file`).
    """
    try:
        return read_checkpoint_file(ckpt_path, field)
    except CheckpointFileError as error:
        raise InferenceError(str(error)) from None


def load_trained(ckpt_path: str, device: str | None = "cpu") -> TrainedModel:
    """Load a zoo checkpoint for inference, onto ``device`` (``None``: ``cuda`` when available, else ``cpu``,
    the default of the commands' ``--device``, resolved here, after their arguments are checked).

    Hyperparameters that the task no longer takes (a checkpoint of an older zoo) are ignored; the weights
    must match.

    Raises:
        InferenceError: if the file is missing, not a checkpoint, or not a zoo checkpoint with tokenizers.
    """
    device = ("cuda" if torch.cuda.is_available() else "cpu") if device is None else device
    check_device(device)
    checkpoint = read_checkpoint(ckpt_path)
    hparams = dict(checkpoint.get("hyper_parameters", {}))
    class_path = hparams.pop("_class_path", None)
    tokenizers = checkpoint_tokenizers(checkpoint)
    if class_path is None or not tokenizers:
        raise InferenceError(f"ckpt_path={ckpt_path!r} is not a zoo checkpoint (no task class or tokenizers)")
    module, _, name = class_path.rpartition(".")
    task_class = getattr(__import__(module, fromlist=[name]), name)
    accepted = set(inspect.signature(task_class.__init__).parameters) | set(inspect.signature(TaskModule).parameters)
    task = task_class(**{k: v for k, v in hparams.items() if k in accepted})
    try:
        task.load_state_dict(checkpoint["state_dict"])
    except RuntimeError as error:  # a weight missing, added or of another shape than its hyperparameters make
        first = next((line.strip() for line in str(error).splitlines()[1:] if line.strip()), str(error))
        raise InferenceError(
            f"ckpt_path={ckpt_path!r} holds weights that do not fit the model its hyperparameters describe "
            f"({first.rstrip('.')}); the file was changed after training"
        ) from None
    task.to(device).eval()
    return TrainedModel(task, {k: load_tokenizer(v) for k, v in tokenizers.items()}, ckpt_path)
