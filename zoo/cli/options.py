"""The commands of ``python -m zoo`` and the options the zoo adds to LightningCLI's (``--runs_dir``,
``--nonfinite_loss``, ...), with the help texts of the four run commands."""

from __future__ import annotations

from jsonargparse.typing import NonNegativeInt, PositiveInt
from lightning.pytorch import Trainer

from zoo.cli.command_line import TOOLS, TRAINING
from zoo.cli.empty_values import RUNS_DIR, WANDB_PROJECT
from zoo.cli.knobs import knob_help
from zoo.cli.recorded_values import PARSER_MODE
from zoo.training.nonfinite_loss import NonFiniteAction
from zoo.training.precision import MatmulPrecision

SUBCOMMANDS = tuple(TRAINING)


def _description(subcommand: str) -> str:
    """The ``--help`` description of a subcommand: Lightning's (the first line of ``Trainer.<subcommand>``), and
    that the defaults it lists are the classes', which a config file overrides."""
    lightning = (getattr(Trainer, subcommand).__doc__ or "").strip().splitlines()[0]
    return (
        f"{lightning} The defaults below are the classes' own (the task, the data module, Lightning's Trainer), not "
        f"a config file's: --config configs/<variant>/<data>.yaml sets its own values over them, and "
        f"`python -m zoo {subcommand} --config <file> --print_config` shows the values a command runs with."
    )


def parser_settings() -> dict:
    """LightningCLI's ``parser_kwargs``: the program's name and description, and each run command's help."""
    return {
        "description": f"Train and evaluate: fit, validate, test, predict (below). The other commands: "
        f"{', '.join(TOOLS)} (python -m zoo <command> --help).",
        "prog": "python -m zoo",  # not "__main__.py" in the usage lines
        "allow_abbrev": False,  # a shortened key (--trainer.max_step) must not set a field silently
        "parser_mode": PARSER_MODE,  # a run's recorded values read back (zoo.cli.recorded_values)
        **{
            sub: {
                "epilog": knob_help(),
                "allow_abbrev": False,
                "description": _description(sub),
                "parser_mode": PARSER_MODE,
            }
            for sub in SUBCOMMANDS
        },
    }


def add_zoo_options(parser) -> None:
    """The zoo's own options of ``fit``, ``validate``, ``test`` and ``predict``."""
    add_init_weights(parser)
    parser.add_argument("--runs_dir", type=str, default=RUNS_DIR, help="Where run folders go.")
    parser.add_argument("--run_name", type=str | None, default=None, help="Override the automatic run name.")
    parser.add_argument(
        "--wandb_project",
        type=str | None,
        default=None,
        help=f"The W&B project (default: $WANDB_PROJECT, else {WANDB_PROJECT}; under a W&B sweep, the sweep's).",
    )
    parser.add_argument(
        "--checkpoint_every_n_steps",
        type=PositiveInt | None,
        default=None,
        help="Also save checkpoints/last.ckpt every N optimiser steps (default: at each validation and at the "
        "end), so that a killed run loses at most N steps.",
    )
    parser.add_argument(
        "--nonfinite_loss",
        type=NonFiniteAction,
        default="stop",
        help="On a NaN or infinite loss: stop before the optimiser step (the last checkpoint stays good), or "
        "skip the batch and go on.",
    )
    parser.add_argument(
        "--matmul_precision",
        type=MatmulPrecision,
        default="highest",
        help="float32 matmuls: highest (float32), high (TF32 on CUDA), medium (also bfloat16 inputs); "
        "torch.set_float32_matmul_precision. Recorded, but not part of the run's identity.",
    )
    parser.add_argument(
        "--keep_last",
        type=NonNegativeInt,
        default=NonNegativeInt(0),  # of its type, as a value read back from a record is
        help="fit: also keep the checkpoints of the last N validations (for `python -m zoo average`).",
    )


def add_init_weights(parser) -> None:
    """``--init_weights`` (:mod:`zoo.training.init_weights`)."""
    parser.add_argument(
        "--init_weights",
        type=str | None,
        default=None,
        help="fit: start a new run from this checkpoint's weights and tokenizer (fine-tuning, e.g. of a model "
        "`python -m zoo import` wrote; not a resume: step, optimiser and schedule start afresh). A weight the "
        "checkpoint lacks (a new task head) is initialised; one of another shape is refused.",
    )
