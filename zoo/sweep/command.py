"""The command line of one trial: the sweep's ``command`` with W&B's macros filled in as ``wandb agent`` fills
them (``${env}``, ``${interpreter}``, ``${program}``, ``${args}``, ``${args_no_hyphens}``, ...), then the
user's fixed extra arguments and the run name the runner gives each trial."""

from __future__ import annotations

import json
import platform
import re
import sys

from zoo.sweep.spec import SweepError

DEFAULT_COMMAND = ["${env}", "${interpreter}", "${program}", "${args}"]  # W&B's default


def macro_values(params: dict, program: str | None) -> dict:
    """What each macro of a sweep ``command`` stands for, following ``wandb agent``.

    Args:
        params: the trial's parameters, dotted keys.
        program: the sweep's ``program`` (may be ``None`` when the command does not use it).

    Returns:
        Macro name -> list of arguments. ``${interpreter}`` is this Python (``sys.executable``), so trials run in
        the same environment as ``zoo sweep``; the agent uses ``python`` from ``PATH``.
    """
    args = [f"--{key}={value}" for key, value in params.items()]
    return {
        "env": ["/usr/bin/env"] if platform.system() != "Windows" else [],
        "interpreter": [sys.executable],
        "program": [program] if program else [],
        "args": args,
        "args_no_hyphens": [arg[2:] for arg in args],
        "args_no_equals": [part for key, value in params.items() for part in (f"--{key}", str(value))],
        "args_no_boolean_flags": [
            f"--{key}" if value is True else f"--{key}={value}" for key, value in params.items() if value is not False
        ],
        "args_json": [json.dumps(params)],
    }


def trial_command(config: dict, params: dict, extra: list[str]) -> list[str]:
    """The argument list of one trial.

    Args:
        config: the sweep configuration (its ``command`` and ``program``).
        params: the trial's parameters.
        extra: arguments added to every trial after the sweep's own (``zoo sweep FILE -- EXTRA...``).

    Returns:
        The command, ready for ``subprocess``.

    Raises:
        SweepError: the command uses a macro ``zoo sweep`` does not know, or ``${program}`` without a program.
    """
    values = macro_values(params, config.get("program"))
    command = []
    for part in config.get("command") or DEFAULT_COMMAND:
        part = str(part)
        if part.startswith("${") and part.endswith("}"):
            name = part[2:-1]
            if name not in values:
                raise SweepError(f"command: macro {part} is not known; use one of: {', '.join(values)}")
            if name == "program" and not config.get("program"):
                raise SweepError("command: ${program} is used but the sweep file has no 'program'")
            command += values[name]
        else:
            command.append(part)
    return command + list(extra)


PARAMETER_MACROS = ("${args}", "${args_no_hyphens}", "${args_no_equals}", "${args_no_boolean_flags}", "${args_json}")
FIT_MACROS = ("${args}", "${args_no_equals}")  # the forms `zoo fit` reads: --key=value and --key value


# A parameter that adds to the command's own option of its name instead of setting it again: `--config` files are
# read in turn, each over the ones before (jsonargparse), so a sweep may lay a file per trial over a base config.
LAYERED = "config"


def check_command_passes_parameters(config: dict, per_trial: tuple[str, ...] = ()) -> None:
    """Refuse a ``command`` that would not pass a trial's parameters to it, or would pass one twice.

    Args:
        config: the sweep configuration.
        per_trial: the fields the runner sets for each trial (``run_name``, ``runs_dir``, ``ckpt_path``).

    Raises:
        SweepError: it has no ``${args}`` (or another macro of the parameters): every trial would train the
            same model under another name; a macro whose form `zoo fit` cannot read (``${args_json}``,
            ``${args_no_hyphens}``, ``${args_no_boolean_flags}``); a ``--config`` after it, which would replace
            the trial's parameters (and a restarted trial's whole logged config); or one of its fixed arguments
            sets a swept parameter (but ``--config``, which a ``config`` parameter lays another file over:
            :data:`LAYERED`) or a field of ``per_trial``.
    """
    command = [str(part) for part in config.get("command") or DEFAULT_COMMAND]
    if not any(part in PARAMETER_MACROS for part in command):
        raise SweepError(
            f"command has no ${{args}}: the parameters ({', '.join(config['parameters'])}) would never reach "
            f"`zoo fit`, and every trial would train the same model; add '${{args}}' to it"
        )
    readable = FIT_MACROS if _has_booleans(config) else (*FIT_MACROS, "${args_no_boolean_flags}")
    unread = [part for part in command if part in PARAMETER_MACROS and part not in readable]
    if unread:
        raise SweepError(
            f"command: {unread[0]} passes the parameters in a form `zoo fit` cannot read (it takes --key=value"
            f"{', true and false included' * _has_booleans(config)}); use '${{args}}' (or '${{args_no_equals}}')"
        )
    macro = next(part for part in command if part in PARAMETER_MACROS)
    config_flag = next((part for part in command[command.index(macro) :] if option_key(part) == "config"), None)
    if config_flag is not None:
        raise SweepError(
            f"command: {macro} stands before {config_flag!r}, whose file would replace each trial's parameters (a "
            f"command line is read left to right); put {macro} after the --config"
        )
    for part in command:
        key = option_key(part)
        if key in config["parameters"] and key != LAYERED:
            raise SweepError(f"command: {part!r} sets {key}, which parameters.{key} sets for each trial; leave one")
        if key in per_trial:
            raise SweepError(f"command: {part!r} sets {key}, which the sweep sets for each trial; leave it out")


def _has_booleans(config: dict) -> bool:
    """Whether a parameter takes ``true`` or ``false``, which ``${args_no_boolean_flags}`` passes as a bare flag
    or not at all."""
    specs = [spec for spec in config["parameters"].values() if isinstance(spec, dict)]
    return any(isinstance(value, bool) for spec in specs for value in [spec.get("value"), *spec.get("values", [])])


BUDGET_LABELS = {"trainer.max_steps": "{}steps", "trainer.max_epochs": "{}epochs", "trainer.max_time": "time{}"}


def budget_name(name: str, extra: list[str], base: dict) -> str:
    """The name of a sweep run with a training budget of its own after ``--`` (``--trainer.max_steps=300``):
    the file's ``name`` and the budget, ``do-pe-300steps``, so that a short trial run of a sweep and the sweep
    at the budget of its config are two sweeps, each with its own state, trials, W&B group and table. Without
    a budget after ``--``, the file's ``name``.

    Args:
        name: the sweep file's ``name``.
        extra: the arguments after ``--``.
        base: the resolved configuration of the trials (flat), which holds the budget's values.
    """
    given = {option_key(argument) for argument in extra}
    parts = [
        re.sub(r"[^A-Za-z0-9_.-]+", "_", form.format(base[key])).strip("_")
        for key, form in BUDGET_LABELS.items()
        if key in given and base.get(key) not in (None, -1)  # -1: no limit
    ]
    return "-".join([name, *parts])


def option_key(argument: str) -> str | None:
    """The field an argument sets (``--model.pe=rope`` and ``--model.init_args.pe=rope`` -> ``model.pe``), or
    ``None`` for no ``--`` option."""
    if not argument.startswith("--"):
        return None
    return ".".join(part for part in argument[2:].split("=", 1)[0].split(".") if part != "init_args")


def zoo_arguments(command: list[str]) -> list[str]:
    """The arguments after ``-m zoo`` in a trial's command (``fit --config ... --model.pe=learned``).

    Raises:
        SweepError: the command does not run ``python -m zoo fit``: ``zoo sweep`` runs zoo trainings only (for
            other programs, use ``wandb agent``).
    """
    for i in range(len(command) - 2):
        if command[i] == "-m" and command[i + 1] == "zoo" and command[i + 2] == "fit":
            return command[i + 2 :]
    raise SweepError(
        "command must run `${interpreter} -m zoo fit --config <config> ${args}`; "
        f"got {' '.join(command)!r} (other programs run under wandb agent)"
    )
