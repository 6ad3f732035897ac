"""What the user typed is what runs: the command line is read left to right, as jsonargparse documents, and a
flag that a later config file would replace is refused in one line, not reordered; a config file never chooses
what one command did.

``fit --model.d_model=32 --config c.yaml`` where ``c.yaml`` sets ``model.d_model`` would train the file's width:
:func:`replaced_flag` says to put the flag after the file. A file is a ``--config`` (or ``-c``), or a file given
to a group (``--model m.yaml``, ``--data d.yaml``, ``--trainer t.yaml``).

What one command did (``ckpt_path``, ``run_name``, ``weights_only``) a config file never chooses: a run's
``config.yaml`` does not record it, and the CLI's reader leaves it out of an older one
(:data:`zoo.cli.recorded_values.PER_INVOCATION`).

Imports nothing but the standard library and the zoo's readers of config files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zoo.cli.recorded_values import load_text

CONFIG_FLAGS = ("--config", "-c")


def _units(args: list[str]) -> list[list[str]]:
    """``args`` as options, each with its value: ``["--config", "a.yaml"]``, ``["--model.pe=rope"]``."""
    units: list[list[str]] = []
    position = 0
    while position < len(args):
        arg = args[position]
        takes_next = arg.startswith("-") and "=" not in arg and position + 1 < len(args)
        width = 2 if takes_next and not args[position + 1].startswith("--") else 1
        units.append(args[position : position + width])
        position += width
    return units


def _option(unit: list[str]) -> tuple[str, str | None]:
    """The option of a unit and its value (``None``: a bare flag)."""
    name, equals, inline = unit[0].partition("=")
    return name, inline if equals else (unit[1] if len(unit) > 1 else None)


def _file_fields(unit: list[str], reads_files: Callable[[str], bool]) -> list[str] | None:
    """The dotted fields a config file sets (``model.d_model``; ``init_args`` left out), its file read as the CLI
    reads it; ``None`` where ``unit`` gives no file."""
    name, value = _option(unit)
    group = "" if name in CONFIG_FLAGS else name.removeprefix("--")
    if value is None or (group and ("." in group or not reads_files(name) or not Path(value).is_file())):
        return None
    try:
        path = Path(value)
        content = load_text(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else load_text(value, "")
    except (OSError, ValueError):  # the parser says what is wrong with it
        return []
    return _dotted(content, group) if isinstance(content, dict) else []


def _dotted(content: dict, prefix: str) -> list[str]:
    fields = []
    for key, value in content.items():
        name = prefix if key == "init_args" else f"{prefix}.{key}".strip(".")
        fields += _dotted(value, name) if isinstance(value, dict) and value else [name]
    return fields


def _overlaps(flag: str, field: str) -> bool:
    """Whether a file's ``field`` replaces what ``flag`` set: the same field, or one inside the other."""
    return flag == field or field.startswith(f"{flag}.") or flag.startswith(f"{field}.")


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
    typed: list[list[str]] = []
    for unit in _units(args[start:]) if start is not None else []:
        fields = _file_fields(unit, reads_files)
        if fields is None:
            typed.append(unit)
            continue
        for flag in typed:
            name = _option(flag)[0].removeprefix("--").rstrip("+")
            field = next((field for field in fields if _overlaps(name, field)), None)
            if field is not None:
                return (
                    f"{' '.join(flag)} stands before {' '.join(unit)}, which sets {field} and would replace it; "
                    f"put it after (a command line is read left to right)"
                )
    return None
