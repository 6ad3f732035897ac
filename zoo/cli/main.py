"""``python -m zoo``: one entry for every command; bad configuration is one line on stderr and exit status 2."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from lightning.pytorch.utilities.exceptions import SIGTERMException

from zoo.cli.command_line import (
    COMMAND_LINE,
    flag_values,
    names_nothing,
    print_commands_and_exit,
    tool_main,
    unknown_command,
)
from zoo.cli.config_checks import ConfigError
from zoo.cli.config_files import files_problem
from zoo.cli.empty_values import OPTIONS
from zoo.cli.errors import print_error
from zoo.cli.evaluation_args import with_run_config
from zoo.cli.field_index import write_index
from zoo.cli.lightning_cli import ZooCLI
from zoo.cli.options import SUBCOMMANDS
from zoo.runs.checkpoint_file import check_loadable
from zoo.runs.folders import RunFolderError
from zoo.runs.lock import release
from zoo.runs.wandb_agent import TrialFinished, unread_parameter_form, without_agent_arguments
from zoo.training.ctrl_c import sigint_kept, stopped_by_ctrl_c
from zoo.training.nonfinite_loss import NonFiniteLossError
from zoo.training.progress import silence_noise
from zoo.training.sigterm import restore_sigterm


def _check_command(args: list[str]) -> None:
    """Refuse an unknown command (``python -m zoo swep``) naming every command, LightningCLI's four and the
    zoo's own, and the nearest one."""
    problem = unknown_command(args[0]) if args else None
    if problem:
        raise ConfigError(problem)


def _check_files(args: list[str]) -> None:
    """Check the files named on the command line before the CLI reads them (LightningCLI loads a checkpoint's
    hyperparameters while parsing, with a long traceback for a bad file)."""
    problem = files_problem(args)
    if problem:  # a missing checkpoint before a missing --config: the file is the mistake
        raise ConfigError(problem)
    for ckpt_path in flag_values(args, "--ckpt_path"):
        if ckpt_path == "":  # before the parser, which would say only that validate needs a config
            raise ConfigError(names_nothing("ckpt_path=''", "ckpt_path", OPTIONS["ckpt_path"]))
        if Path(ckpt_path).is_file():
            check_loadable(ckpt_path)


def main(args: list[str] | None = None) -> None:
    """Entry point of ``python -m zoo``: bad configuration is one line on stderr and exit status 2.

    ``fit``, ``validate``, ``test`` and ``predict`` go to :class:`ZooCLI`; ``sweep``, ``compare``,
    ``translate``, ``generate``, ``attention``, ``average`` and ``cache`` to the ``main(argv)`` of their modules.
    """
    with sigint_kept():  # Lightning ignores Ctrl-C after one it stopped: this process may call main again
        _main(args)


def _main(args: list[str] | None) -> None:
    argv = sys.argv[1:] if args is None else list(args)
    COMMAND_LINE[:] = argv
    if not argv:
        print_commands_and_exit()
    if tool := tool_main(argv[0]):
        sys.exit(tool(argv[1:]))
    argv = without_agent_arguments(argv)  # a trial restarted by wandb agent: W&B's own config keys
    COMMAND_LINE[:] = argv
    silence_noise()
    try:
        _check_command(argv)
        if argv and argv[0] in SUBCOMMANDS and (unread := unread_parameter_form(argv)):
            raise ConfigError(unread)
        _check_files(argv)
        argv = COMMAND_LINE[:] = with_run_config(argv)  # a checkpoint's own run config, when none is given
        write_index()  # for the next command's check before Lightning loads (zoo.cli.unknown_fields)
        if args is None:
            sys.argv[1:] = argv  # what LightningCLI parses, and what DDP's launcher starts the other ranks with
        ZooCLI(args=None if args is None else argv)
    except TrialFinished as finished:  # restarted by wandb agent after it ended: done, not failed
        print(f"zoo: {finished}")
        sys.exit(0)
    except (ConfigError, RunFolderError) as error:
        print_error("zoo", error)
        sys.exit(2)
    except NonFiniteLossError as error:
        print_error("zoo", error)
        sys.exit(1)
    except SIGTERMException:  # Lightning's SystemExit without a code would exit 0, as if the run had finished
        sys.exit(128 + (signal.SIGINT if stopped_by_ctrl_c() else signal.SIGTERM))
    except KeyboardInterrupt:  # before training (once it runs, Lightning stops it and the record says so)
        print("zoo: interrupted before training started", file=sys.stderr)
        sys.exit(128 + signal.SIGINT)
    finally:
        restore_sigterm()  # a check that failed before the model was built
        release()  # the run folder, for the next command of this process
