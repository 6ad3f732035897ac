"""The parser of every tool (``sweep``, ``compare``, ``translate``, ``generate``, ...): jsonargparse's, as ``fit``'s
is, with ``--config``/``--print_config``, zoo's options typed with its restricted numbers (:data:`Count`), and
one error path: an unknown option or choice with the nearest ones, a bad value naming the option, the value and
what is valid, in one line.

Imports jsonargparse and the standard library only: a tool's command line is checked before torch loads.
"""

from __future__ import annotations

import argparse
import math
import sys
import typing

from jsonargparse import ActionConfigFile, ArgumentParser, DefaultHelpFormatter, set_dumper
from jsonargparse._actions import _ActionPrintConfig
from jsonargparse._typehints import ActionTypeHint
from jsonargparse.typing import restricted_number_type

from zoo.cli import library_messages as library
from zoo.cli.command_line import MAX_SEED, did_you_mean, flag_values, names_nothing, noun
from zoo.cli.recorded_values import dump_yaml
from zoo.cli.tool_config import config_contents, config_problem, from_files, replaced_option


def _parenthetical(text: str, start: int) -> str:
    """The text inside the parentheses that open at ``text[start]`` (nested ones kept), or ``""``."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1 : index]
    return ""


def option_hint(action: argparse.Action) -> str:
    """What an option is when not given, or what it takes, for :func:`names_nothing`: its help's ``(default:
    ...)``, its default, its metavar, or its help's last parenthesis (``(30d, 12h; a number: days)``)."""
    help_text = action.help or ""
    if "(default" in help_text:
        return _parenthetical(help_text, help_text.index("(default"))
    if isinstance(action.default, str) and action.default:
        return f"default: {action.default}"
    if action.metavar:
        return str(action.metavar)
    return _parenthetical(help_text, help_text.rindex("(")) if "(" in help_text else ""


def names_something(action: argparse.Action) -> bool:
    """Whether an empty value of ``action`` means nothing sensible: it takes text (no type: a typed option says
    what it takes itself), has no choices (those are listed), and its default is not ``""`` (``generate
    --prompt``'s is: no text) nor none at all (``--print_config``: flags, which it may be given none of)."""
    hint = getattr(action, "_typehint", None) if isinstance(action, ActionTypeHint) else None
    typed = action.type is not None or (hint is not None and hint is not str and str not in typing.get_args(hint))
    return action.nargs != 0 and not action.choices and not typed and action.default not in ("", argparse.SUPPRESS)


# zoo's own options typed with jsonargparse's restricted numbers: each says what is valid (:func:`bad_value`)
LARGEST_COUNT = 2**31 - 1  # a count (tokens, beams, samples, sentences) beyond it overflows the decoder's tensors
Count = restricted_number_type("Count", int, [(">", 0), ("<=", LARGEST_COUNT)], join="and")
Bounded = restricted_number_type("Bounded", int, [("<=", LARGEST_COUNT)])  # checked for its range where it is read
Seed = restricted_number_type("Seed", int, [(">=", 0), ("<=", MAX_SEED)], join="and")  # numpy's, as fit's seed
TYPE_WORDS = {"int": "an integer", "float": "a number", "str": "text", "Count": "an integer", "Bounded": "an integer",
              "Seed": "an integer"}  # fmt: skip
RANGE_WORDS = {"Seed": f"an integer in [0, {MAX_SEED}]"}  # a restricted type whose range says it better than a bound
BOUND_WORDS = {">": "above {}", ">=": "at least {}", "<": "below {}", "<=": "at most {}"}


def _failed_bound(value: str, restriction: str) -> str:
    """What a restricted number's first failed bound asks (``v>0 and v<=2147483647`` of ``0``: ``positive``)."""
    number = float(value)
    for operator, bound in library.BOUND.findall(restriction):
        if not {">": number > float(bound), ">=": number >= float(bound), "<": number < float(bound),
                "<=": number <= float(bound)}[operator]:  # fmt: skip
            return "positive" if (operator, float(bound)) == (">", 0) else BOUND_WORDS[operator].format(bound)
    return restriction


def _finite(text: str) -> bool:
    """Whether ``text`` is no number or a finite one (``inf``, ``-inf`` and ``nan`` are not)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return True


def _where(key: str, value: str, typed: list[str]) -> str:
    """``--key=value`` as typed, or ``key: value (in --config)`` for a value that came from a file."""
    return f"--{key}={value}" if typed else f"{key}: {value} (in --config)" if value not in ("?", "'?'") else (
        f"{key} (in --config)")  # fmt: skip


def bad_value(message: str, args: list[str]) -> str | None:
    """jsonargparse's message for a value of an option that its type refuses (``--top_p=abc``, ``--beam_size=0``)
    as ``--top_p='abc' is not valid; it must be a number`` (the value as typed in ``args``, else as the message
    gives it); ``None`` for another message."""
    match = library.TYPE_ERROR.search(message.strip())
    if match is None:
        return None
    key = match.group(1)
    typed = flag_values(args, f"--{key}")
    given = library.GIVEN_VALUE.search(message) or library.RESTRICTED_VALUE.search(message)
    value = typed[-1] if typed else given.group(1).strip() if given else "?"
    bounds = library.RESTRICTION.search(message)
    if bounds:
        valid = RANGE_WORDS.get(bounds.group(1)) or _failed_bound(bounds.group(2), bounds.group(3))
        return f"{_where(key, value, typed)} is not valid; it must be {valid}"
    kinds = [TYPE_WORDS.get(kind, kind) for kind in library.EXPECTED_CLASS.findall(message) if kind != "NoneType"]
    if "a number" in kinds and not _finite(value):  # jsonargparse reads inf and nan as text
        kinds = ["a finite number"]
    valid = " or ".join(dict.fromkeys(kinds)) or "of its type"
    return f"{_where(key, repr(value), typed)} is not valid; it must be {valid}"


def unrecognized(message: str, options: list[str], command: str, stray_hint: str) -> str | None:
    """argparse's ``unrecognized arguments: --paralel 2`` as ``--paralel is not an option of <command>; did you
    mean --parallel?`` (the first unknown option, and the nearest of ``options``), or for words that are no
    argument (``generate 'To be'``) the words and ``stray_hint``; ``None`` for another message."""
    match = library.UNRECOGNIZED.match(message.strip())
    if match is None:
        return None
    words = match.group(1).split(" ")
    flag = next((w.partition("=")[0] for w in words if w.startswith("-")), None)
    if flag is None:  # words that are no argument: where what they hold goes
        hint = stray_hint or f"python -m zoo {command} --help lists its arguments"
        return f"{match.group(1)!r} is not an argument of {command}; {hint}"
    hint = did_you_mean(flag, options, "; ") or f"; python -m zoo {command} --help lists its options"
    return f"{flag} is not an option of {command}{hint}"


def nearest_choice(message: str, actions: list[argparse.Action]) -> str | None:
    """argparse's ``argument action: invalid choice: 'lst' (choose from ...)`` with ``; did you mean list?``
    after it (the nearest choices of the argument it names, among ``actions``); ``None`` for another message."""
    match = library.INVALID_CHOICE.match(message.strip())
    if match is None:
        return None
    name, value = match.groups()
    action = next((a for a in actions if name in ("/".join(a.option_strings), a.metavar, a.dest) and a.choices), None)
    return message.strip() + (did_you_mean(value, [str(c) for c in action.choices], "; ") if action else "")


def missing_value(message: str) -> str | None:
    """argparse's ``argument --beam_size: expected one argument`` (a flag that ends the line, or is followed by
    another option) as ``--beam_size needs a value (--beam_size=VALUE)``; ``None`` for another message."""
    match = library.MISSING_VALUE.match(message.strip())
    return f"--{match[1]} needs a value (--{match[1]}=VALUE)" if match else None


def missing_options(message: str, actions: list[argparse.Action]) -> str | None:
    """jsonargparse's ``the following arguments are required: ckpt_path, out`` with the options as typed
    (``--ckpt_path, --out``); ``None`` for another message."""
    match = library.REQUIRED.match(message.strip())
    if match is None:
        return None
    flags = {a.dest: max(a.option_strings, key=len) if a.option_strings else a.metavar or a.dest for a in actions}
    names = [flags.get(name, name) for name in match.group(1).split(", ")]
    return f"the following arguments are required: {', '.join(names)}"


class HelpAsWritten(DefaultHelpFormatter):
    """Each option's help as its tool words it (its default in words), and ``(required)`` where it is."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        return f"{text} (required)" if action.required and action.option_strings else text  # a positional: its usage


class OneLineParser(ArgumentParser):
    """The parser of a tool (``sweep``, ``compare``, ``generate``, ...): jsonargparse's, as ``fit``'s is, with
    ``--config FILE`` and ``--print_config`` of its options; its errors one line raised as ``error_class`` (no
    usage text, no ``sys.exit`` inside an in-process call), an unknown option or choice with the nearest ones."""

    error_class: type[Exception] = ValueError
    stray_hint = ""  # what to say of a word that is no argument (``generate hello``: where the text goes)
    config_file = True  # sweep's is its FILE, and a --config before its -- is fit's, told to go after it

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)  # as fit's: --beam must not set --beam_size silently
        self.needed: list[argparse.Action] = []  # positional arguments a --config may give: required after it
        super().__init__(*args, formatter_class=HelpAsWritten, **kwargs)
        if self.config_file:
            self.add_argument("--config", action=ActionConfigFile, help="a YAML file of these options (--print_config)")
            set_dumper("yaml", dump_yaml)  # --print_config's text as --config reads it back (1e3 quoted)
        self.argv: list[str] = []

    def add_argument(self, *args, **kwargs):
        """argparse's, but a required positional argument (``cache ACTION``) may come from a ``--config`` file:
        it is required once the files are read (:meth:`parse_args`)."""
        needed = args and not args[0].startswith("-") and kwargs.get("nargs") is None and self.config_file
        action = super().add_argument(*args, **({**kwargs, "nargs": "?"} if needed else kwargs))
        if needed:
            self.needed.append(action)
        return action

    def parse_args(self, args=None, namespace=None, **kwargs):
        """jsonargparse's parse, but an unknown ``--option`` or a word that is no argument is told before a
        missing required one (``translate --beam 2`` is refused for ``--beam``, not for the missing
        ``--ckpt_path``): a first parse with no option required tells those, and ``--print_config`` prints its
        options, the ``--config`` files' positional arguments in, wherever it stands."""
        self.argv = sys.argv[1:] if args is None else list(args)
        if "" in flag_values(self.argv, "--config"):  # jsonargparse reads it before any value is converted
            raise self.error_class(names_nothing("--config=", "config", "a YAML file of these options"))
        takes_value = {o for a in self._actions if a.nargs != 0 for o in a.option_strings}
        positionals = [action.dest for action in self._actions if not action.option_strings]
        contents = config_contents(self.argv)  # each file read once for the checks around the parse
        if refusal := replaced_option(self.argv, contents, takes_value, positionals):
            raise self.error_class(refusal)
        helped = {"-h", "--help"} & {*self.argv}  # its usage says which options are required
        required = [action for action in self._actions if action.required and not helped]
        for action in required:
            action.required = False
        try:
            with _ActionPrintConfig.skip_print_config():  # printed below, once the files' values are in
                first = super().parse_args(self.argv, namespace, **kwargs)
        finally:
            for action in required:
                action.required = True
        if _ActionPrintConfig.is_print_config_requested(self):  # the whole of it, required options or not
            if problem := from_files(first, self._actions, self.argv, contents):
                raise self.error_class(problem)
            _ActionPrintConfig.print_config_if_requested(self, first)
        parsed = super().parse_args(self.argv, namespace, **kwargs)
        if problem := from_files(parsed, self._actions, self.argv, contents):
            raise self.error_class(problem)
        if missing := [action for action in self.needed if getattr(parsed, action.dest) is None]:
            self.error(f"the following arguments are required: {', '.join(action.dest for action in missing)}")
        return parsed

    def _get_values(self, action: argparse.Action, arg_strings: list[str]):
        """The conversion of the strings given to ``action``, but an empty one refused where it names nothing
        (:func:`names_something`): ``cache clear --cache_dir=``, ``compare --report=`` and ``attention --out=``
        name no folder or file, not the default one."""
        if "" in arg_strings and names_something(action):
            if not action.option_strings:  # a positional argument: `sweep ''`
                raise self.error_class(f"'' names no {noun(action.dest) or action.dest}; give {action.help}")
            flag = max(action.option_strings, key=len)
            hint = option_hint(action)
            alone = f", or {flag} alone for its default" if action.nargs == "?" else ""
            raise self.error_class(names_nothing(f"{flag}=", flag, hint) + alone)
        return super()._get_values(action, arg_strings)

    def error(self, message: str, ex: Exception | None = None):
        options = [o for action in self._actions for o in action.option_strings if o.startswith("--")]
        command = self.prog.removeprefix("python -m zoo ")
        text = str(message)
        raise self.error_class(
            unrecognized(text, options, command, self.stray_hint)
            or nearest_choice(text, self._actions)
            or bad_value(text, self.argv)
            or missing_value(text)
            or missing_options(text, self._actions)
            or config_problem(text, options, command)
            or " ".join(line.strip() for line in text.splitlines() if line.strip())
        )
