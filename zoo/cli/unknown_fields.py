"""A mistyped field on the command line of ``fit``, ``validate``, ``test`` or ``predict``, told before Lightning is
imported (seconds): ``--model.n_head=8`` gets ``model.n_head is not a field; did you mean model.n_heads,
model.n_kv_heads?`` in a fraction of a second, in the words of the full parser (:mod:`zoo.cli.parser`, which
words it from here too).

The fields come from an index in the cache (``$ZOO_CACHE/cli-fields.json``), which the first run command after
any change writes from the real parser (:mod:`zoo.cli.field_index`), and which is used only while it matches the
code it was written from (a digest of the files that define fields, and the versions of Lightning and
jsonargparse): until then the full parser alone decides. Nothing of it is committed. A flag is refused here
only when it is certain to be refused there: a ``model`` or ``data`` field of no zoo task or data module, while the
command names no class of the user's own; any other flag that is no option of the command and continues none
(``--trainer.callbacks.monitor`` continues ``--trainer.callbacks``).

Imports nothing but the standard library (and PyYAML, to read a config's ``class_path``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from pathlib import Path

from zoo.cli.command_line import TRAINING, did_you_mean, flag_values

ZOO = Path(__file__).resolve().parents[1]
# besides the files of the task and data module classes (written into the index): the packages' exports, and the
# options zoo adds to LightningCLI's and the keys it leaves out of a run's record
SOURCES = (
    "tasks/__init__.py",
    "data/__init__.py",
    *(f"cli/{name}.py" for name in ("options", "lightning_cli", "knobs", "field_index", "parser_only")),
    "cli/recorded_values.py",
    "runs/wandb_agent.py",
)
LIBRARIES = ("lightning", "jsonargparse")
GROUPS = ("model", "data")  # the groups whose fields depend on the class (subclass mode)
CLASS_KEYS = ("class_path", "init_args", "help", "dict_kwargs")


def index_path() -> Path:
    """``$ZOO_CACHE/cli-fields.json`` (the cache of :func:`zoo.data.cache.default_cache_dir`, not imported here)."""
    return Path(os.environ.get("ZOO_CACHE", Path.home() / ".cache" / "zoo")) / "cli-fields.json"


def unknown_key_message(key: str, options: list[str], fields: dict[str, list[str]]) -> str:
    """The line for ``key`` (``trainer.max_step``, ``confg``), no option of the command (``options``: its fields
    without dashes), with the nearest of them (a mistyped group too: ``modle.lr``); ``fields``: the model's and
    the data's fields."""
    _, dot, rest = key.partition(".")
    if dot:  # a dotted key is one field of a group (--trainer.max_step), or a group mistyped (--modle.lr)
        groups = sorted({o.partition(".")[0] for o in options})
        dotted = [o for o in options if "." in o]
        field = rest.removeprefix("init_args.").partition(".")[0]
        real = [  # a field of that group: an option, or one of a model's or data module's (``data.d_model`` is none)
            f"{group}.{rest}" for group in groups
            if f"{group}.{rest}" in options or (group in GROUPS and field in fields.get(group, [field]))
        ]  # fmt: skip
        near = did_you_mean(key, dotted) or did_you_mean(key, real, cutoff=0.6)
    else:
        near = did_you_mean(key, options)
    return f"{key} is not a field;{near or ' python -m zoo fit --help lists every field'}"


def unknown_field_message(group: str, name: str, fields: dict[str, list[str]]) -> str:
    """The line for ``<group>.<name>`` where ``name`` is a field of no task (``group="model"``) or data module
    (``"data"``); ``fields``: each group's fields. Names the other group where it is a field there."""
    other = "data" if group == "model" else "model"
    if name in fields[other]:  # --model.src_column for data.src_column
        return f"{group}.{name} is not a field; did you mean {other}.{name}?"
    near = did_you_mean(name, fields[group], cutoff=0.6, prefix=f"{group}.")
    return f"{group}.{name} is not a field;{near or ' --help lists every field'}"


def digest(classes: list[str]) -> str:
    """What the index was written from: the files ``classes`` (those of the tasks, the data modules and their
    bases, relative to ``zoo/``) and :data:`SOURCES`, and the versions of :data:`LIBRARIES`."""
    sha = hashlib.sha256()
    for source in sorted({*classes, *SOURCES}):
        file = ZOO / source
        sha.update(source.encode() + b"\0" + (file.read_bytes() if file.is_file() else b"(none)"))
    sha.update(json.dumps(libraries(), sort_keys=True).encode())
    return sha.hexdigest()


def libraries() -> dict[str, str]:
    """The installed versions of :data:`LIBRARIES` (the trainer's fields are Lightning's)."""
    return {library: _version(library) for library in LIBRARIES}


def _version(library: str) -> str | None:
    try:
        return importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:  # not installed here: the command's imports say so
        return None


def load_index() -> dict | None:
    """The index, or ``None`` where there is none or it was written from other code or libraries."""
    try:
        index = json.loads(index_path().read_text())
    except (OSError, ValueError):
        return None
    return index if index.get("digest") == digest(index.get("sources", [])) else None


def refused_before_imports(args: list[str]) -> str | None:
    """The line for the first flag of ``args`` (``fit --model.n_head=8 ...``) that the full parser is certain to
    refuse as no field, or ``None`` (no such flag, another command, or no index of this code)."""
    if not args or args[0] not in TRAINING:
        return None
    index = load_index()
    if index is None:
        return None
    own = {group: _names_own_class(args, group, index) for group in GROUPS}
    words = args[1 : args.index("--")] if "--" in args else args[1:]
    for word in words:
        key = word[2:].partition("=")[0].removesuffix("+") if word.startswith("--") else ""
        problem = key and _problem(key, index, args[0], own)
        if problem:
            return problem
    return None


def _problem(key: str, index: dict, command: str, own: dict[str, bool]) -> str | None:
    options = index["options"][command]
    parts = key.split(".")
    if key in options or key.startswith(tuple(index["ignored_prefixes"])) or key in index["ignored_keys"]:
        return None
    if any(".".join(parts[:end]) in options for end in range(2, len(parts))):  # --trainer.callbacks.monitor
        return None
    if parts[0] in GROUPS and len(parts) > 1:
        name = parts[2] if parts[1] == "init_args" and len(parts) > 2 else parts[1]
        if own[parts[0]] or name in CLASS_KEYS or name in index["fields"][parts[0]]:
            return None
        return unknown_field_message(parts[0], name, index["fields"])
    return unknown_key_message(key, options, index["fields"])


def _names_own_class(args: list[str], group: str, index: dict) -> bool:
    """Whether the command names a class of ``group`` that is not zoo's (``--model=my.Task``, or a config file's
    ``model: {class_path: my.Task}``): its fields are its own, and only the full parser knows them."""
    named = flag_values(args, f"--{group}") + flag_values(args, f"--{group}.class_path")
    configs = flag_values(args, "--config") + flag_values(args, "-c")
    named += [path for config in configs for path in _config_class_paths(config, group)]
    known = set(index["classes"][group])
    return any(value not in known for value in named)


def _config_class_paths(config: str, group: str) -> list[str]:
    """The ``class_path`` under ``group:`` in the YAML file ``config`` (``"?"`` where the file cannot be read as
    a mapping: the full parser says why, and this check assumes nothing of it)."""
    import yaml  # PyYAML alone: milliseconds

    try:
        content = yaml.safe_load(Path(config).read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ["?"]
    section = content.get(group) if isinstance(content, dict) else None
    if section is None or (isinstance(section, dict) and "class_path" not in section):
        return []
    return [section["class_path"]] if isinstance(section, dict) and isinstance(section["class_path"], str) else ["?"]
