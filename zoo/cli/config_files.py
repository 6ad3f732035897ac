"""The files a run command names, checked before the CLI (and Lightning) is imported: a ``--config`` that names no
file gets the shipped configs, the nearest first; a file that is not YAML gets its line and column; a file that
holds no mapping of fields says so; a ``--ckpt_path``
that names no file gets the files beside it that are nearest.

Imports nothing but the standard library and PyYAML.
"""

from __future__ import annotations

from pathlib import Path

from zoo.cli.command_line import did_you_mean, flag_values
from zoo.cli.yaml_files import YAMLFileError, load_yaml
from zoo.runs.checkpoint_file import not_a_checkpoint_file

EXAMPLE_CONFIG = "configs/quickstart.yaml"  # the example of a config to pass: it downloads nothing
SHIPPED_CONFIGS = Path(__file__).resolve().parents[2] / "configs"  # zoo/cli/config_files.py -> the repository


def shipped_configs(whole: bool = False) -> list[str]:
    """The config files the repository ships (``configs/quickstart.yaml``, ...), as a command line names them;
    ``whole``: only those that name a model and its data, not the files laid over another one by a second
    ``--config`` (``configs/encoder_decoder/recurrent/``: the systems of ``sweeps/ed-architecture.yaml``)."""
    paths = sorted(SHIPPED_CONFIGS.glob("**/*.yaml"))
    if whole:
        paths = [path for path in paths if {"model", "data"} <= set(_fields(path))]
    return [str(path.relative_to(SHIPPED_CONFIGS.parent)) for path in paths]


def _fields(path: Path) -> dict:
    try:
        loaded = load_yaml(path)
    except YAMLFileError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def missing_config(path: str) -> str:
    """The line for a ``--config`` that names no file (``--config=`` included): the shipped configs, the nearest
    first."""
    configs = shipped_configs()
    what = "--config= names no file" if not path else f"--config {path}: no such file"
    near = did_you_mean(path, configs, "; ") if path else ""
    return f"{what}{near}; the shipped configs: {', '.join(configs)}"


def config_file_problem(paths: list[str]) -> str | None:
    """The line for the first of the ``--config`` values ``paths`` that names no file (and holds no YAML text:
    jsonargparse also takes a config inline), is not valid YAML (its file, line and column), or holds no mapping
    of fields; ``None`` when every one is a mapping."""
    for path in paths:
        if path and Path(path).is_dir():
            own = Path(path) / "config.yaml"
            hint = f"; the run's config is {own}" if own.is_file() else ""
            return f"--config {path} is a folder, not a config file{hint}"
        if not Path(path).is_file():
            if not path or (not Path(path).exists() and not any(char in path for char in "{}:\n")):  # no YAML text
                return missing_config(path)
            continue
        try:
            content = load_yaml(path)
        except YAMLFileError as error:
            return str(error)
        if not isinstance(content, dict):
            held = "nothing" if content is None else f"a {type(content).__name__}"
            return (
                f"--config {path} holds {held}, not a mapping of fields (e.g. `model:`, `data:`, `trainer:`); "
                f"python -m zoo fit --print_config shows one"
            )
    return None


def checkpoint_problem(paths: list[str]) -> str | None:
    """The line for the first of the ``--ckpt_path`` values ``paths`` that names no file (``last``, the latest run
    of the configuration, is resolved later), or ``None``."""
    missing = next((path for path in paths if path and path != "last" and not Path(path).is_file()), None)
    return None if missing is None else not_a_checkpoint_file(missing, "ckpt_path")


def missing_model_and_data(command: str) -> str:
    """The line for a run command given no model and data (no ``--config``, nor ``--model`` and ``--data``):
    the shipped configs, and for ``validate``, ``test`` and ``predict`` that a checkpoint alone will do (its run's
    ``config.yaml`` is read: :func:`zoo.cli.evaluation_args.with_run_config`)."""
    configs = shipped_configs(whole=True)
    shipped = f" ({', '.join(configs)})" if configs else ""
    if command == "fit":
        return (
            f"fit needs a model and its data: pass --config with a config file{shipped}, e.g. `python -m zoo fit "
            f"--config {EXAMPLE_CONFIG}`, or --model CLASS and --data CLASS"
        )
    return (
        f"{command} needs a model and its data: pass a run's checkpoint alone, whose run's config.yaml is read "
        f"(`python -m zoo {command} --ckpt_path runs/<name>/checkpoints/last.ckpt`), or --config with a config "
        f"file{shipped} and --ckpt_path, or --model CLASS and --data CLASS"
    )


def files_problem(args: list[str]) -> str | None:
    """The line for the first file a run command's ``args`` name that cannot be read as named (a ``--config``
    by :func:`config_file_problem`, then a ``--ckpt_path`` by :func:`checkpoint_problem`), or ``None``."""
    configs = [value for flag in ("--config", "-c") for value in flag_values(args, flag)]  # -c: LightningCLI's short
    return config_file_problem(configs) or checkpoint_problem(flag_values(args, "--ckpt_path"))
