"""What a run records, read back as it was written: the CLI reads values and config files through
:func:`load_text`, so that a run's ``config.yaml``, ``config.json`` and W&B config, given back as a config file
or as ``--field=VALUE`` flags, mean the same run.

A ``wandb agent`` that restarts a trial passes the logged config as flags, each value as Python prints it
(``--model.betas=(0.9, 0.98)``, ``--trainer.max_steps=None``, ``--model.bias=True``), and ``config.json`` and W&B's
config hold a tuple or a list as that text (``"(0.9, 0.98)"``): YAML, which jsonargparse reads values with, takes
``(0.9, 0.98)`` and ``None`` for strings. A record file (``config.json``, W&B's ``config.yaml``) is flat
(``model.lr``, no ``init_args``), which a config file of the CLI is not.
"""

from __future__ import annotations

import ast
from typing import Any

import yaml
from jsonargparse import get_loader, set_dumper, set_loader

from zoo.runs.identity import PER_INVOCATION, RUN_PREFIX

PARSER_MODE = "zoo"  # the CLI's jsonargparse parser_mode: YAML, and Python's literals
# keys of a record that are no field: where a run ran (zoo.runs.devices.RUN_PREFIX), and W&B's own in its config.yaml
RUN_FACTS = (f"{RUN_PREFIX}.",)
WANDB_KEYS = ("_wandb", "wandb_version")
# groups whose fields a flat record lists beside the class_path (zoo.runs.record.flatten drops init_args)
CLASS_GROUPS = ("model", "data")
_LEFT_OUT: dict[tuple[str, str], Any] = {}  # (file, field) -> value: what load_text left out of config files


def load_text(text: str, path: str | None = None) -> Any:
    """A value or a config file of the CLI: a one-line value that is a Python literal as Python reads it (a
    tuple ``(0.9, 0.98)`` as the list ``[0.9, 0.98]``, ``None``, ``True``, ``[None, 1]``, ``{'a': None}``),
    anything else as YAML; a config file (``path``) that is a run's flat record as the nested config it
    stands for (:func:`nested_record`), without the :data:`PER_INVOCATION` fields (a run's ``config.yaml``
    recorded them before they were left out; :func:`unchosen_lines` says so).

    Raises:
        yaml.YAMLError: the text is neither a Python literal nor YAML.
    """
    value = _python_literal(text) if "\n" not in text.strip() else _NOT_LITERAL
    if value is _NOT_LITERAL:
        value = get_loader("yaml")(text)  # jsonargparse's own YAML: YAML 1.2's floats (1e-3)
    if path is None:
        return value
    value = nested_record(value) if _is_flat_record(value) else value
    for field in PER_INVOCATION if isinstance(value, dict) else ():
        if value.get(field) is not None:
            _LEFT_OUT[(str(path), field)] = value[field]
        value.pop(field, None)
    return value


def unchosen_lines(args: list[str]) -> list[str]:
    """The lines for the :data:`PER_INVOCATION` fields :func:`load_text` left out of config files since the last
    call, but those a flag of ``args`` names; forgets them."""
    typed = {arg[2:].partition("=")[0] for arg in args if arg.startswith("--")}
    lines = [
        f"zoo: {path or 'an inline --config'} sets {field}={value!r}, {PER_INVOCATION[field]}, which a config file "
        f"does not choose: left out (name it with --{field})"
        for (path, field), value in _LEFT_OUT.items()
        if field not in typed
    ]
    _LEFT_OUT.clear()
    return list(dict.fromkeys(lines))


_NOT_LITERAL = object()


def _python_literal(text: str) -> Any:
    """``text`` as a Python literal with tuples as lists (jsonargparse's loaders give lists), or
    :data:`_NOT_LITERAL` where it is none or a string (which YAML reads as Python does)."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL
    return _NOT_LITERAL if isinstance(value, (str, bytes, complex, set)) else _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _is_flat_record(value: Any) -> bool:
    """Whether a config file's content is a run's record: flat dotted keys (``model.class_path``), as in
    ``config.json`` and W&B's config, or W&B's ``config.yaml`` (each key's ``{value: ..., desc: ...}``)."""
    return isinstance(value, dict) and any(isinstance(key, str) and "." in key for key in _unwrapped(value))


def _unwrapped(record: dict) -> dict:
    """W&B's ``config.yaml`` (``{key: {desc: null, value: V}}``) as ``{key: V}``; other mappings as they are."""
    fields = {key: item for key, item in record.items() if key not in WANDB_KEYS}
    wrapped = all(isinstance(v, dict) and "value" in v and set(v) <= {"value", "desc"} for v in fields.values())
    return {key: item["value"] for key, item in fields.items()} if wrapped and fields else record


def nested_record(record: dict) -> dict:
    """A flat record (``{"model.class_path": C, "model.lr": 0.001, "trainer.max_time.minutes": 1}``) as a
    config file of the CLI (``{"model": {"class_path": C, "init_args": {"lr": 0.001}}, "trainer": {"max_time":
    {"minutes": 1}}}``), without :data:`RUN_FACTS` (recorded, not set: ``run.world_size``) and W&B's own keys."""
    nested: dict = {}
    for key, value in _unwrapped(record).items():
        if str(key).startswith((*RUN_FACTS, *WANDB_KEYS)):
            continue
        parts = str(key).split(".")
        if parts[0] in CLASS_GROUPS and len(parts) > 1 and parts[1] not in ("class_path", "init_args"):
            parts.insert(1, "init_args")
        level = nested
        for part in parts[:-1]:
            level = level.setdefault(part, {})
        level[parts[-1]] = value
    return nested


def given_back(args: list[str]) -> tuple[list[str], list[str]]:
    """A command line that may hold a run's record as flags, in the order the CLI reads: each group's
    ``--model.class_path`` (``--data.class_path``) before the group's first field (a record's keys come sorted:
    ``--model.activation`` before ``--model.class_path``), and without the :data:`RUN_FACTS` flags
    (``--run.world_size=1``: where the run ran, which a run finds out itself).

    Returns:
        The arguments to parse, and the recorded facts left out (``run.world_size``).
    """
    kept, facts, position = [], [], 0
    while position < len(args):
        arg = args[position]
        name = arg[2:].partition("=")[0] if arg.startswith("--") else ""
        position += 1
        if not name.startswith(RUN_FACTS):
            kept.append(arg)
            continue
        facts.append(name)
        if "=" not in arg and position < len(args) and not args[position].startswith("--"):
            position += 1  # --run.world_size 1
    for group in CLASS_GROUPS:
        kept = _class_path_first(kept, group)
    return kept, facts


def _class_path_first(args: list[str], group: str) -> list[str]:
    """``args`` with the last ``--<group>.class_path=CLASS`` (or ``--<group>.class_path CLASS``) moved before
    the group's first field, where one comes before it."""
    flag = f"--{group}.class_path"
    paths = [i for i, arg in enumerate(args) if arg == flag or arg.startswith(f"{flag}=")]
    if not paths:
        return args
    start = paths[-1]
    span = args[start : start + (1 if "=" in args[start] else 2)]
    rest = args[:start] + args[start + len(span) :]
    first = next((i for i, arg in enumerate(rest) if arg.startswith(f"--{group}.")), len(rest))
    return rest[:first] + span + rest[first:] if first < start else args


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, which quotes a string that jsonargparse's YAML reads as something else: PyYAML
    (YAML 1.1) would write ``1e-3`` bare, which the CLI (YAML 1.2 floats) reads back as the number 0.001."""

    def represent_str(self, data: str) -> yaml.ScalarNode:
        try:
            same = get_loader("yaml")(data) == data
        except yaml.YAMLError:
            same = False
        return self.represent_scalar("tag:yaml.org,2002:str", data, style=None if same else "'")


_Dumper.add_representer(str, _Dumper.represent_str)


def dump_yaml(data: Any) -> str:
    """``data`` as YAML that jsonargparse reads back as ``data`` (a run's ``config.yaml``, ``--print_config``)."""
    return yaml.dump(data, Dumper=_Dumper, default_flow_style=False, allow_unicode=True, sort_keys=False)


def register() -> None:
    """Make :data:`PARSER_MODE` a parser mode of jsonargparse (``ArgumentParser(parser_mode=PARSER_MODE)``),
    and its YAML (a mode without a dumper of its own dumps as ``yaml``) :func:`dump_yaml`."""
    set_loader(PARSER_MODE, load_text, exceptions=(yaml.YAMLError,))
    set_dumper("yaml", dump_yaml)
