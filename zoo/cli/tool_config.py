"""A tool's options from ``--config`` files (``generate --config g.yaml``), read as the command line is: left to
right, so a flag typed before a file that sets it too is refused, not replaced; each value of a file of the kind
its option takes (text, a list of text; no ``null`` where the option has a value by default); a positional
argument (``compare``'s runs, ``cache``'s action) from a file where none is typed; and jsonargparse's words for a
file it refuses as one line.

Imports PyYAML, jsonargparse and the standard library only.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml
from jsonargparse._typehints import ActionTypeHint

from zoo.cli import library_messages as library
from zoo.cli.command_line import did_you_mean, flag_values

NOT_OPTIONS = ("help", "config", "print_config")


def config_contents(argv: list[str]) -> list[tuple[str, dict]]:
    """Each ``--config`` of ``argv`` (a file, or inline YAML: ``--config '{a: 1}'``) and the mapping it holds,
    in command-line order; ``{}`` for one that cannot be read (the parser says why)."""
    contents = []
    for value in flag_values(argv, "--config"):
        try:
            text = Path(value).read_text(encoding="utf-8") if Path(value).is_file() else value
            content = yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError):
            content = {}
        contents.append((value, content if isinstance(content, dict) else {}))
    return contents


def replaced_option(
    argv: list[str], contents: list[tuple[str, dict]], takes_value: set[str], positionals: list[str]
) -> str | None:
    """The line for the first option, or positional word, typed before a ``--config`` that sets it too, which
    jsonargparse, reading left to right, would replace with the file's value; ``None`` where none is.

    Args:
        argv: the command line after the command.
        contents: its ``--config`` files' mappings (:func:`config_contents`).
        takes_value: the options that take the word after them as their value (not ``--plan``).
        positionals: the names of the command's positional arguments (``runs``).
    """
    typed: list[str] = []
    words: list[str] = []  # the positional words so far
    files, value_next = iter(contents), False
    for arg in argv:
        name = arg.partition("=")[0]
        if name == "--config":
            value, content = next(files)
            keys = set(map(str, content))
            replaced = next((flag for flag in typed if flag[2:] in keys), None)
            field = replaced[2:] if replaced else next((p for p in positionals if p in keys and words), None)
            if field is not None:
                shown = replaced or repr(" ".join(words))
                return (
                    f"{shown} stands before --config {value}, which sets {field} and would replace it; put it after "
                    "(a command line is read left to right)"
                )
        if name.startswith("-"):
            typed += [name] * (name != "--config")
            value_next = "=" not in arg and (name in takes_value or name == "--config")
        elif value_next:
            value_next = False
        else:
            words.append(arg)
    return None


def _shown(action: argparse.Action) -> str:
    return max(action.option_strings, key=len) if action.option_strings else action.dest


def from_files(
    parsed, actions: list[argparse.Action], argv: list[str], contents: list[tuple[str, dict]]
) -> str | None:
    """Give each positional argument that no word of ``argv`` set its value in the last ``--config`` that sets
    it (argparse sets an untyped one empty after the files), a list option given one text its list, and say what
    is wrong with the first value of the wrong kind: not text where the option takes text, ``""`` where it names
    something, ``null`` where it has a value by default, not true or false for an on/off flag; ``None`` when all
    are of their kind (``contents``: the ``--config`` files' mappings, :func:`config_contents`)."""
    for action in (a for a in actions if a.dest not in NOT_OPTIONS):
        value = getattr(parsed, action.dest, None)
        if action.nargs == 0:  # an on/off flag (--plan): a file's value must be true or false
            if isinstance(action.const, bool) and not isinstance(value, bool):
                shown = "null" if value is None else repr(value)
                return f"{action.dest}: {shown} (in --config) is not valid; it must be true or false"
            continue
        if not action.option_strings and value in (None, []):
            value = next((c[action.dest] for _, c in reversed(contents) if action.dest in c), value)
        if action.nargs in ("+", "*") and isinstance(value, str):
            value = [value]
        setattr(parsed, action.dest, value)
        if value is None and action.default is not None and action.default != argparse.SUPPRESS:
            return f"{action.dest}: null (in --config) is not valid; leave it out for its default ({action.default!r})"
        untyped = action.type is None and not isinstance(action, ActionTypeHint)
        texts = value if isinstance(value, list) and action.nargs in ("+", "*") else [value]
        typed = flag_values(argv, _shown(action))
        if untyped and "" in texts and "" not in (action.default, action.const) and not typed:
            return f"{action.dest}: '' (in --config) names nothing; give one, or leave it out"
        if untyped and value is not None and not all(isinstance(text, str) for text in texts):
            kind = "a list of text" if action.nargs in ("+", "*") else "text"
            where = f"{_shown(action)}={value!r}" if typed else f"{action.dest}: {value!r} (in --config)"
            return f"{where} is not valid; it must be {kind} (quote it in the file)"
    return None


def config_problem(message: str, options: list[str], command: str) -> str | None:
    """jsonargparse's words for a ``--config`` of a tool whose content is refused, as a line naming what to
    change: a key that is no option (and the nearest ones), a file that is no mapping of options, a file that
    cannot be read; ``None`` for another message."""
    if unknown := library.UNKNOWN_OPTION.match(message.strip()):
        near = did_you_mean(f"--{unknown[1]}", options, "; ")
        return f"{unknown[1]} in --config is not an option of {command}{near or f'; {command} --help lists them'}"
    if library.UNEXPECTED_CONFIG.match(message.strip()):
        return f"--config holds no options of {command}; give a YAML mapping of option: value (--print_config)"
    if keyed := library.PARSER_KEY.match(message.strip()):
        return f"--{keyed[1]}: {' '.join(keyed[2].split())}"
    return None
