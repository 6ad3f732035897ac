"""What the user typed is what runs: flags win over config files whatever their order, and a config file never
chooses what one command did.

jsonargparse applies a command line in order, where a config file after a flag would replace it silently.
:func:`typed_last` puts the config files first, in their own order (a later file over an earlier one), and the
flags after them, in theirs: ``fit --model.d_model=32 --config configs/quickstart.yaml`` trains d_model 32, and a
sweep's ``command`` that puts ``${args}`` before ``--config`` trains each trial's values. A file is a ``--config``
(or ``-c``), or a file given to a group (``--model m.yaml``, ``--data d.yaml``, ``--trainer t.yaml``).
``--print_config`` shows the result.

A run's ``config.yaml`` records what its command was given, ``ckpt_path`` included (a resumed run's
``last.ckpt``), and a sweep trial's its ``run_name``: read back, such a value would choose the checkpoint an
evaluation loads, or the folder a new run takes, without the user naming it. The :data:`PER_INVOCATION` fields
are therefore taken from flags only: where a config file sets one, it is reset after the files, and a line
says so unless a flag names it.

Imports nothing but the standard library and the zoo's readers of config files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zoo.cli.recorded_values import load_text

CONFIG_FLAGS = ("--config", "-c")
# the fields that name what one command did, not what the model is (why each is not read from a config file)
PER_INVOCATION = {
    "ckpt_path": "the checkpoint one command started from or evaluated",
    "weights_only": "how one command loaded its checkpoint",
    "run_name": "the run folder one command wrote",
}


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


def _is_file_config(unit: list[str], reads_files: Callable[[str], bool]) -> bool:
    name, value = _option(unit)
    if name in CONFIG_FLAGS:
        return True
    return value is not None and "." not in name and reads_files(name) and Path(value).is_file()


def _file_fields(unit: list[str]) -> dict:
    """The top-level fields that a ``--config`` unit sets (its file read as the CLI reads it), or ``{}``."""
    name, value = _option(unit)
    if name not in CONFIG_FLAGS or not value:
        return {}
    try:
        path = Path(value)
        content = load_text(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else load_text(value)
    except (OSError, ValueError):  # the parser says what is wrong with it
        return {}
    return content if isinstance(content, dict) else {}


def typed_last(args: list[str], subcommands: tuple[str, ...], reads_files: Callable[[str], bool]) -> tuple:
    """A command line with its config files first and its flags after them, and the :data:`PER_INVOCATION`
    fields a config file sets reset between the two.

    Args:
        args: the whole command line (options of the top parser, a subcommand, its options).
        subcommands: the names of the subcommands (``fit``, ``validate``, ``test``, ``predict``).
        reads_files: whether the subcommand's option ``--name`` takes a config file of its group.

    Returns:
        The arguments to parse, and the lines to say (a config file's per-invocation field left out).

    Example:
        >>> typed_last(["fit", "--model.d_model=32", "--config", "c.yaml"], ("fit",), lambda name: False)[0]
        ['fit', '--config', 'c.yaml', '--model.d_model=32']
    """
    start = next((i + 1 for i, arg in enumerate(args) if arg in subcommands), None)
    if start is None:
        return args, []
    units = _units(args[start:])
    files = [unit for unit in units if _is_file_config(unit, reads_files)]
    flags = [unit for unit in units if not _is_file_config(unit, reads_files)]
    typed = {_option(unit)[0].removeprefix("--") for unit in flags}
    resets, lines = [], []
    for unit in files:
        for field, value in _file_fields(unit).items():
            if field not in PER_INVOCATION or value is None:
                continue
            resets.append(f"--{field}=null")
            if field not in typed:
                lines.append(
                    f"zoo: {_option(unit)[1]} sets {field}={value!r}, {PER_INVOCATION[field]}, which a config file "
                    f"does not choose: left out (name it with --{field})"
                )
    ordered = [arg for unit in files for arg in unit] + list(dict.fromkeys(resets))
    return [*args[:start], *ordered, *(arg for unit in flags for arg in unit)], lines
