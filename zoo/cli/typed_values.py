"""What the user typed is what runs: the command line is read left to right, as jsonargparse documents, and a
flag that a later config file would replace is refused in one line, not reordered; a config file never chooses
what one command did.

``fit --model.d_model=32 --config c.yaml`` where ``c.yaml`` sets ``model.d_model`` would train the file's width:
:func:`replaced_flag` says to put the flag after the file. A file is a ``--config`` (or ``-c``), or a file given
to a group (``--model m.yaml``, ``--data d.yaml``, ``--trainer t.yaml``).

What one command did (``ckpt_path``, ``run_name``, ``weights_only``) a config file never chooses: a run's
``config.yaml`` does not record it, and the CLI's reader leaves it out of an older one
(:data:`zoo.runs.identity.PER_INVOCATION`).

Imports nothing but the standard library and the zoo's readers of config files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import yaml

from zoo.cli.recorded_values import CLASS_GROUPS, load_text

CONFIG_FLAGS = ("--config", "-c")
FILE_SUFFIXES = (".yaml", ".yml", ".json")  # a group's value that names a file of its fields (``trainer: t.yaml``)
_NUMBER = re.compile(r"-(?:\d|\.\d|inf\b|nan\b).*")  # a value, not an option: --trainer.max_steps -1


def _units(args: list[str]) -> list[list[str]]:
    """``args`` as options, each with its value: ``["--config", "a.yaml"]``, ``["--model.pe=rope"]``,
    ``["-c", "a.yaml"]`` for ``-ca.yaml``."""
    units: list[list[str]] = []
    position = 0
    while position < len(args):
        arg = args[position]
        if arg.startswith("-c") and len(arg) > 2 and arg[2] != "=":  # -cPATH, as argparse reads it
            units.append(["-c", arg[2:]])
            position += 1
            continue
        following = args[position + 1] if position + 1 < len(args) else None
        takes_next = arg.startswith("-") and "=" not in arg and following is not None
        width = 2 if takes_next and (not following.startswith("-") or _NUMBER.fullmatch(following)) else 1
        units.append(args[position : position + width])
        position += width
    return units


def _option(unit: list[str]) -> tuple[str, str | None]:
    """The option of a unit and its value (``None``: a bare flag)."""
    name, equals, inline = unit[0].partition("=")
    return name, inline if equals else (unit[1] if len(unit) > 1 else None)


def _field(option: str, value: str | None) -> str:
    """The dotted field a flag sets: ``--model.init_args.d_model`` -> ``model.d_model``, ``--trainer.callbacks+``
    -> ``trainer.callbacks``, ``--model CLASS`` -> ``model.class_path``."""
    field = ".".join(part for part in option.removeprefix("--").rstrip("+").split(".") if part != "init_args")
    return f"{field}.class_path" if field in CLASS_GROUPS and value is not None else field


def _file_fields(unit: list[str], reads_files: Callable[[str], bool]) -> dict | None:
    """The dotted fields a config file sets, with their values (``{"model.d_model": 64}``; ``init_args`` left
    out), its file read as the CLI reads it; ``None`` where ``unit`` gives no file."""
    name, value = _option(unit)
    group = "" if name in CONFIG_FLAGS else name.removeprefix("--")
    if value is None or (group and ("." in group or not reads_files(name) or not Path(value).is_file())):
        return None
    try:
        path = Path(value)
        content = load_text(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else load_text(value, "")
        return _dotted(content, group) if isinstance(content, dict) else {}
    except (OSError, ValueError, yaml.YAMLError):  # the parser says what is wrong with it
        return {}


def _dotted(content: dict, prefix: str) -> dict:
    fields: dict = {}
    for key, value in content.items():
        name = prefix if key == "init_args" else f"{prefix}.{key}".strip(".")
        if isinstance(value, str) and value.endswith(FILE_SUFFIXES) and Path(value).is_file():
            value = load_text(Path(value).read_text(encoding="utf-8"), value)  # a group's own file
        if isinstance(value, dict):
            fields |= _dotted(value, name)
        elif name in CLASS_GROUPS:  # model: zoo.tasks.TranslationTask
            fields[f"{name}.class_path"] = value
        else:
            fields[name] = value
    return fields


def _overlaps(flag: str, field: str) -> bool:
    """Whether a file's ``field`` replaces what ``flag`` set: the same field, or one inside the other."""
    return flag == field or field.startswith(f"{flag}.") or flag.startswith(f"{field}.")


def _class(path: object) -> str:
    return str(path).rpartition(".")[2]


def _replacing(flag: str, fields: dict, classes: dict) -> str | None:
    """The field of a config file's ``fields`` that replaces the ``flag`` typed before it: the same field, or
    another class for the flag's group (whose fields jsonargparse then drops); ``None`` where none does."""
    group = flag.partition(".")[0]
    chosen = fields.get(f"{group}.class_path")
    if group in CLASS_GROUPS and chosen is not None and classes.get(group) not in (None, _class(chosen)):
        return f"{group}.class_path"
    return next((f for f in fields if _overlaps(flag, f) and not f.endswith(".class_path")), None)


def replaced_flag(args: list[str], subcommands: tuple[str, ...], reads_files: Callable[[str], bool]) -> str | None:
    """The line for the first flag that a config file after it would replace, or ``None``.

    Args:
        args: the whole command line (options of the top parser, a subcommand, its options).
        subcommands: the names of the subcommands (``fit``, ``validate``, ``test``, ``predict``).
        reads_files: whether the subcommand's option ``--name`` takes a config file of its group.

    Example:
        ``fit --model.d_model=32 --config c.yaml`` where ``c.yaml`` sets ``model.init_args.d_model``:
        ``--model.d_model=32 stands before --config c.yaml, which sets model.d_model and would replace it; put it
        after (a command line is read left to right)``.
    """
    start = next((i + 1 for i, arg in enumerate(args) if arg in subcommands), None)
    typed: list[tuple[list[str], str]] = []  # each flag so far, and the field it sets
    classes: dict[str, str] = {}  # each group's class so far (its last component)
    for unit in _units(args[start:]) if start is not None else []:
        fields = _file_fields(unit, reads_files)
        if fields is None:
            field = _field(*_option(unit))
            typed.append((unit, field))
            if field.endswith(".class_path") and _option(unit)[1]:
                classes[field.partition(".")[0]] = _class(_option(unit)[1])
            continue
        for flag, field in typed:
            if (replacing := _replacing(field, fields, classes)) is not None:
                return (
                    f"{' '.join(flag)} stands before {' '.join(unit)}, which sets {replacing} and would replace it; "
                    f"put it after (a command line is read left to right)"
                )
        classes |= {key.partition(".")[0]: _class(v) for key, v in fields.items() if key.endswith(".class_path")}
    return None
