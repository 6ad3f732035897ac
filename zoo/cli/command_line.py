"""What every ``python -m zoo`` command shares before anything heavy is imported: the commands and what each
does, the values of a flag on a command line, the range of a seed, and the one-line "did you mean" for a
mistyped option or choice, which ``fit``'s parser (:mod:`zoo.cli.parser`) and the tools' parser
(:mod:`zoo.cli.tool_parser`) give alike.

Imports nothing but the standard library: a command line is checked before torch and Lightning load (seconds).
"""

from __future__ import annotations

import difflib
import importlib
import sys
from collections.abc import Callable

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
         "file": "file", "out": "file", "input": "file", "report": "file", "config": "file"}  # fmt: skip
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


def print_commands_and_exit() -> None:
    """Bare ``python -m zoo``: the commands on stdout, exit status 0 (as ``--help``)."""
    print(command_list())
    sys.exit(0)


# the arguments of this command (set by zoo.cli.main.main), for messages that need the field's group
COMMAND_LINE: list[str] = []
