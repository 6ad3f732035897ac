"""``validate``, ``test`` and ``predict`` of a run's checkpoint need only the checkpoint: without ``--config``
(nor ``--model``/``--data``), the run's own ``config.yaml`` beside its ``checkpoints/`` is the config, and the
flags given still override it (as ``translate`` needs only the file)."""

from __future__ import annotations

from pathlib import Path

from zoo.cli.command_line import flag_values
from zoo.cli.config_checks import ConfigError

EVALUATING = ("validate", "test", "predict")
SAID: list[str] = []  # the line of the run config read, said by ZooCLI once the command's checks have passed
CONFIGURING = ("--config", "-c", "--model", "--data", "--model.class_path", "--data.class_path")


def with_run_config(args: list[str]) -> list[str]:
    """``args`` (a subcommand and its options) with ``--config runs/<name>/config.yaml`` put first when the
    subcommand evaluates a checkpoint (``--ckpt_path runs/<name>/checkpoints/X.ckpt``) and names no config, model
    or data; unchanged otherwise (``--ckpt_path last``, or a config given). :data:`SAID` gets the line that says
    which config is read, for stderr once the checks pass (a refusal stays one line; stdout stays the command's own).

    Raises:
        ConfigError: such a checkpoint lies outside a run folder (no ``config.yaml`` two folders up).
    """
    SAID.clear()
    if not args or args[0] not in EVALUATING or any(flag_values(args, flag) for flag in CONFIGURING):
        return args
    ckpt_paths = flag_values(args, "--ckpt_path")
    if not ckpt_paths or not Path(ckpt_paths[-1]).is_file():
        return args
    config = Path(ckpt_paths[-1]).resolve().parent.parent / "config.yaml"  # runs/<name>/checkpoints/X.ckpt
    if not config.is_file():
        raise ConfigError(
            f"{args[0]} of ckpt_path={ckpt_paths[-1]!r}: it is not in a run folder with a config.yaml ({config} is "
            f"not a file), which would give its model and data; pass --config with the config it was trained with"
        )
    SAID[:] = [f"zoo: {args[0]} of {ckpt_paths[-1]} with its run's config {config} (flags override it)"]
    return [args[0], "--config", str(config), *args[1:]]
