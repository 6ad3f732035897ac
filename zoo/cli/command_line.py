"""What every ``python -m zoo`` command shares before anything heavy is imported: the commands and what each
does, the values of a flag on a command line, the range of a seed, and the one-line "did you mean" for a
mistyped option or choice, which ``fit``'s parser (:mod:`zoo.cli.parser`) and the argparse parsers of the other
commands give alike.

Imports nothing but the standard library: a command line is checked before torch and Lightning load (seconds).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Callable

from zoo.cli import library_messages as library

MAX_SEED = 2**32 - 1  # numpy's, which Lightning's seed_everything seeds: fit's seed, generate's --seed
TRAINING = {  # LightningCLI's subcommands (zoo.cli.lightning_cli.ZooCLI), which share one parser
    "fit": "train a model (a run folder under runs/, checkpoints, W&B); --ckpt_path last resumes",
    "validate": "evaluate a checkpoint on the validation split",
    "test": "evaluate a checkpoint on the test split",
    "predict": "write a checkpoint's predictions on the validation or test split",
}
TOOLS = {  # subcommands outside LightningCLI's four: the module whose main(argv) runs each
    "sweep": "zoo.sweep",
    "compare": "zoo.compare",
    "translate": "zoo.inference.translate",
    "generate": "zoo.inference.generate",
    "attention": "zoo.inference.attention",
    "average": "zoo.inference.average",
    "cache": "zoo.inference.cache_command",
    "import": "zoo.weights.importer",
    "export": "zoo.weights.export",
}
TOOL_HELP = {
    "sweep": "run a W&B sweep file locally, one process per trial (docs/sweeps.md)",
    "compare": "compare runs across seeds with Welch's t-test: a table and a verdict per row (docs/compare.md)",
    "translate": "translate sentences with a trained encoder-decoder",
    "generate": "continue a prompt with a trained decoder-only model",
    "attention": "draw the attention weights of a trained model on a text",
    "average": "average the weights of several checkpoints of one run",
    "cache": "list, prune (by age or size) or clear the data cache (docs/data.md)",
    "import": "import a Hugging Face model folder (GPT-2, BERT, Llama, Marian) as a zoo run folder (docs/weights.md)",
    "export": "write a zoo model as a Hugging Face model folder where an architecture matches (docs/weights.md)",
}


def tool_main(name: str) -> Callable[[list[str]], int | None] | None:
    """The ``main(argv)`` of the command ``name`` where it is a tool (its module in :data:`TOOLS`, imported by
    name: the tool's own imports, not Lightning's), or ``None`` for a run command (:data:`TRAINING`)."""
    return importlib.import_module(TOOLS[name]).main if name in TOOLS else None


def command_list() -> str:
    """What bare ``python -m zoo`` prints: the usage, then each command with what it does."""
    width = max(map(len, [*TRAINING, *TOOLS]))
    rows = [f"  {name:<{width}}  {text}" for name, text in [*TRAINING.items(), *TOOL_HELP.items()]]
    return "\n".join(
        [
            "usage: python -m zoo <command> [options]   (python -m zoo <command> --help lists its options)",
            "",
            "commands:",
            *rows,
            "",
            "start: python -m zoo fit --config configs/quickstart.yaml",
        ]
    )


def unknown_command(name: str) -> str | None:
    """The line for a first argument that is no command (``python -m zoo swep``), naming every command and the
    nearest one; ``None`` for a command or an option."""
    commands = [*TRAINING, *TOOLS]
    if name.startswith("-") or name in commands:
        return None
    near = did_you_mean(name, commands, "; ", cutoff=0.6)
    return f"{name!r} is not a command; choose one of: {', '.join(commands)}{near}"


def flag_values(args: list[str], flag: str) -> list[str]:
    """The values given to ``flag`` in ``args`` (``--flag VALUE`` or ``--flag=VALUE``), in command-line order;
    ``--flag=`` gives ``""``, as does a ``--flag`` that ends the line.

    Example:
        >>> flag_values(["--config", "a.yaml", "--config=b.yaml", "--config="], "--config")
        ['a.yaml', 'b.yaml', '']
    """
    values = []
    for arg, after in zip(args, [*args[1:], ""], strict=False):  # no args: no pairs
        name, equals, inline = arg.partition("=")
        if name == flag:
            values.append(inline if equals else after)
    return values


# what an option or field of each name names, which an empty value names none of: by its whole name, else by how
# it ends
NOUNS = {"path": "folder or hub id", "name": "data set configuration", "run_name": "run name",
         "wandb_project": "W&B project", "ckpt_path": "checkpoint", "init_weights": "checkpoint", "runs": "run",
         "file": "file", "out": "file", "input": "file", "report": "file"}  # fmt: skip
NOUN_ENDINGS = {"_dir": "folder", "_path": "file", "_file": "file"}


def noun(name: str) -> str | None:
    """What the option or field ``name`` (``--runs_dir``, ``data.cache_dir``) names (:data:`NOUNS`), or ``None``."""
    name = name.lstrip("-").rpartition(".")[2]
    return NOUNS.get(name) or next((n for end, n in NOUN_ENDINGS.items() if name.endswith(end)), None)


def names_nothing(shown: str, name: str, hint: str = "") -> str:
    """The line for an empty value where an empty one means nothing sensible; ``shown``: the option as given,
    ``name``: its name, ``hint``: what it is when not given, or what it takes.

    Example:
        >>> names_nothing("--cache_dir=", "cache_dir", "default: ~/.cache/zoo")
        '--cache_dir= names no folder; give one (default: ~/.cache/zoo)'
    """
    said = f"{shown} names no {noun(name)}" if noun(name) else f"{shown} gives no value"
    return f"{said}; give one" + (f" ({hint})" if hint else "")


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
    """Whether an empty value of ``action`` means nothing sensible: it takes text (no type, or ``str``), has no
    choices (argparse lists those), and its default is not ``""`` (``generate --prompt``'s is: no text)."""
    return action.nargs != 0 and not action.choices and action.type in (None, str) and action.default != ""


def did_you_mean(name: str, options: list[str], before: str = " ", cutoff: float = 0.75, prefix: str = "") -> str:
    """`` did you mean X, Y?`` for the ``options`` that ``name`` begins, then those nearest to it (``difflib``'s
    ratio at least ``cutoff``), after ``before``; ``""`` when none is near.

    Example:
        >>> did_you_mean("--paralel", ["--parallel", "--threads"], "; ")
        '; did you mean --parallel?'
    """
    longer = [option for option in options if option.startswith(name) and len(name.strip("-")) > 2]  # --beam
    near = list(dict.fromkeys([*longer, *difflib.get_close_matches(name, options, n=3, cutoff=cutoff)]))[:3]
    return f"{before}did you mean {', '.join(prefix + option for option in near)}?" if near else ""


def unrecognized(message: str, options: list[str], command: str) -> str:
    """argparse's ``unrecognized arguments: --paralel 2`` as ``--paralel is not an option of <command>; did you
    mean --parallel?`` (the first unknown option, and the nearest of ``options``); other messages unchanged."""
    match = library.UNRECOGNIZED.match(message.strip())
    if match is None:
        return message
    words = match.group(1).split()
    flag = next((w.partition("=")[0] for w in words if w.startswith("-")), None)
    if flag is None:  # a stray word: argparse's own words name it
        return f"{message}; python -m zoo {command} --help lists its arguments"
    hint = did_you_mean(flag, options, "; ") or f"; python -m zoo {command} --help lists its options"
    return f"{flag} is not an option of {command}{hint}"


def nearest_choice(message: str, actions: list[argparse.Action]) -> str:
    """argparse's ``argument action: invalid choice: 'lst' (choose from ...)`` with ``; did you mean list?``
    after it (the nearest choices of the argument it names, among ``actions``); other messages unchanged."""
    match = library.INVALID_CHOICE.match(message.strip())
    if match is None:
        return message
    name, value = match.groups()
    action = next((a for a in actions if name in ("/".join(a.option_strings), a.metavar, a.dest) and a.choices), None)
    return message + did_you_mean(value, [str(c) for c in action.choices], "; ") if action else message


def invalid_number(message: str) -> str:
    """argparse's ``argument --top_p: invalid float value: 'abc'`` as ``--top_p='abc' is not valid; it must be a
    number``; other messages unchanged."""
    match = library.INVALID_VALUE.match(message.strip())
    if match is None:
        return message
    flag, kind, value = match.groups()
    return f"{flag.split('/')[-1]}={value!r} is not valid; it must be {'an integer' if kind == 'int' else 'a number'}"


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line raised as ``error_class`` (no usage text, no ``sys.exit``
    inside an in-process call), an unknown option or choice with the nearest ones (:func:`unrecognized`,
    :func:`nearest_choice`)."""

    error_class: type[Exception] = ValueError
    stray_hint = ""  # what to say of a word that is no argument (``generate hello``: where the text goes)

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)  # as fit's: --beam must not set --beam_size silently
        super().__init__(*args, **kwargs)

    def parse_args(self, args=None, namespace=None):
        """argparse's parse, but an unknown ``--option``, then a word that is no argument, is told before a missing
        required one (``translate --beam 2`` is refused for ``--beam``, not for the missing ``--ckpt_path``)."""
        argv = sys.argv[1:] if args is None else list(args)
        words = argv[: argv.index("--")] if "--" in argv else argv
        known = self._option_string_actions
        if unknown := next((w for w in words if w.startswith("--") and w.partition("=")[0] not in known), None):
            self.error(f"unrecognized arguments: {unknown}")
        if stray := self._stray_words(argv):  # `translate hello`: the word, not the missing --ckpt_path
            command = self.prog.removeprefix("python -m zoo ")
            hint = self.stray_hint or f"python -m zoo {command} --help lists its arguments"
            raise self.error_class(f"{' '.join(stray)!r} is not an argument of {command}; {hint}")
        return super().parse_args(args, namespace)

    def _stray_words(self, argv: list[str]) -> list[str]:
        """The words of ``argv`` that are neither an option, an option's value nor a positional argument, found
        with the required options left unrequired (a parser with positional arguments of its own: none)."""
        if any(not action.option_strings for action in self._actions):
            return []
        required = [action for action in self._actions if action.required]
        for action in required:
            action.required = False
        try:
            _, extra = self.parse_known_args(argv)
        finally:
            for action in required:
                action.required = True
        return [word for word in extra if not word.startswith("-")]

    def _get_values(self, action: argparse.Action, arg_strings: list[str]):
        """argparse's conversion of the strings given to ``action``, but an empty one refused where it names
        nothing (:func:`names_something`): ``cache clear --cache_dir=``, ``compare --report=`` and ``attention
        --out=`` name no folder or file, not the default one."""
        if "" in arg_strings and names_something(action):
            if not action.option_strings:  # a positional argument: `sweep ''`
                raise self.error_class(f"'' names no {noun(action.dest) or action.dest}; give {action.help}")
            flag = max(action.option_strings, key=len)
            hint = option_hint(action)
            alone = f", or {flag} alone for its default" if action.nargs == "?" else ""
            raise self.error_class(names_nothing(f"{flag}=", flag, hint) + alone)
        return super()._get_values(action, arg_strings)

    def error(self, message: str):
        options = [o for action in self._actions for o in action.option_strings if o.startswith("--")]
        message = invalid_number(nearest_choice(message, self._actions))
        raise self.error_class(unrecognized(message, options, self.prog.removeprefix("python -m zoo ")))


def print_commands_and_exit() -> None:
    """Bare ``python -m zoo``: the commands on stdout, exit status 0 (as ``--help``)."""
    print(command_list())
    sys.exit(0)


# the arguments of this command (set by zoo.cli.main.main), for messages that need the field's group
COMMAND_LINE: list[str] = []
