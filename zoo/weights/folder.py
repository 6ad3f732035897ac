"""A Hugging Face model folder: ``config.json``, the weights (``model.safetensors``, shards of ``*.safetensors``
or ``pytorch_model.bin``) and ``tokenizer.json``; read, or written for export. A hub id (``gpt2``,
``Helsinki-NLP/opus-mt-de-en``) is downloaded first with ``huggingface_hub``, online only."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import Tensor

from zoo.weights.errors import WeightsError

WEIGHT_FILES = "model.safetensors, model-*-of-*.safetensors or pytorch_model.bin"


def local_folder(source: str) -> Path:
    """The folder of ``source``: itself if it is a folder, else the hub id's snapshot (downloaded).

    Raises:
        WeightsError: for a file, a missing folder that is no hub id, or a hub id that cannot be fetched.
    """
    path = Path(source).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise WeightsError(
            f"SOURCE={source!r} is a file; give the folder of a Hugging Face model (config.json, weights)"
        )
    if source.count("/") > 1 or source.startswith((".", "/", "~")):
        raise WeightsError(f"SOURCE={source!r} is no folder and no hub id (name or owner/name)")
    try:
        from huggingface_hub import snapshot_download

        patterns = ["config.json", "*.safetensors", "*.safetensors.index.json", "tokenizer*", "*.json", "*.spm"]
        return Path(snapshot_download(source, allow_patterns=patterns))
    except Exception as error:  # offline, unknown id, gated model: one line whatever the hub says
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise WeightsError(f"SOURCE={source!r} is no folder here, and the hub did not give it: {reason}") from None


def read_config(folder: Path) -> dict:
    """``config.json`` of ``folder``.

    Raises:
        WeightsError: if it is missing or not a JSON object.
    """
    path = folder / "config.json"
    if not path.is_file():
        raise WeightsError(f"{str(folder)!r} has no config.json: not a Hugging Face model folder")
    return read_json(path)


def read_json(path: Path) -> dict:
    """The JSON object of the file ``path``.

    Raises:
        WeightsError: naming the file where it cannot be read, is not UTF-8 JSON or holds no JSON object.
    """
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise WeightsError(f"{str(path)!r} cannot be read: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise WeightsError(f"{str(path)!r} is not valid JSON: {error}") from None
    if not isinstance(content, dict):
        raise WeightsError(f"{str(path)!r} holds no JSON object")
    return content


def read_weights(folder: Path) -> dict[str, Tensor]:
    """Every parameter of ``folder``'s weights, on the CPU (safetensors first; ``pytorch_model.bin`` with
    ``weights_only=True``, which loads no code).

    Raises:
        WeightsError: if there are no weights, or a file cannot be read.
    """
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    files = sorted(folder.glob("*.safetensors"))
    try:
        if files:
            return {name: tensor for file in files for name, tensor in load_file(file).items()}
        if (folder / "pytorch_model.bin").is_file():
            return torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
    except (SafetensorError, OSError, RuntimeError) as error:
        raise WeightsError(f"the weights of {str(folder)!r} cannot be read: {str(error).splitlines()[0]}") from None
    raise WeightsError(f"{str(folder)!r} has no weights ({WEIGHT_FILES})")


def write_folder(out: Path, hf_config: dict, state: dict[str, Tensor], files: dict[str, str | bytes]) -> None:
    """Write ``config.json``, ``model.safetensors`` and ``files`` (name -> text or bytes: the tokenizer's,
    ``generation_config.json``) into ``out``, a new folder (its parents are made)."""
    from safetensors.torch import save_file

    out.mkdir(parents=True)
    (out / "config.json").write_text(json.dumps({**hf_config, "torch_dtype": "float32"}, indent=2) + "\n")
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    for name, content in files.items():
        (out / name).write_bytes(content if isinstance(content, bytes) else content.encode())
