"""A sweep file: W&B's sweep YAML, loaded and checked, and its trials.

The format is W&B's own (``program``/``command``, ``method``, ``metric``, ``parameters``), so that the same file
runs under ``wandb sweep`` + ``wandb agent``. Checks and searches come from W&B's sweep engine, the ``sweeps``
package: its JSON schema for the file, and its grid, random and Bayesian searches.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy

from zoo.cli.command_line import did_you_mean
from zoo.cli.yaml_files import YAMLFileError, load_yaml
from zoo.messages import nearest_paths
from zoo.sweep.distributions import check_distribution, distribution_of
from zoo.sweep.engine import SweepError, sweeps_engine

METHODS = ("grid", "random", "bayes")
SEED_KEY = "seed_everything"
PARAMETER_FIELDS = ("value", "values", "distribution", "min", "max", "mu", "sigma")
NEWER_KEYS = ("run_cap",)  # W&B sweep keys that the schema of sweeps 0.2.0 does not know yet


@dataclass
class Trial:
    """One training run of a sweep.

    Args:
        name: the run name (``--run_name``), e.g. ``do-pe-learned-s2``: deterministic, so that a second
            ``zoo sweep`` finds the run folder of an earlier one.
        params: every swept parameter and its value, dotted keys (``{"model.pe": "learned", ...}``).
        job_type: the varied knobs but the seed, e.g. ``pe=learned,norm=rmsnorm`` (W&B's ``job_type``).
    """

    name: str
    params: dict
    job_type: str = field(default="")


def load_sweep(path: str | Path) -> dict:
    """Read and check a sweep file.

    Args:
        path: a W&B sweep YAML file.

    Returns:
        The sweep configuration as a dict.

    Raises:
        SweepError: the file is missing, not YAML, or not a valid sweep (one line naming the field).
    """
    path = Path(path)
    if path.is_dir():
        raise SweepError(f"sweep file {str(path)!r} is a folder; name one of its sweep files (e.g. sweeps/do-pe.yaml)")
    if not path.is_file():
        raise SweepError(f"sweep file {str(path)!r} not found{nearest_paths(str(path), folders=False)}")
    try:
        config = load_yaml(path)
    except YAMLFileError as error:
        raise SweepError(str(error)) from None
    check_sweep(config, str(path))
    return config


def check_sweep(config: object, where: str = "sweep") -> None:
    """Raise ``SweepError`` naming the first bad field of a sweep configuration.

    Our checks come first (their messages name the field and say what is valid); W&B's JSON schema then
    catches the rest.
    """
    if not isinstance(config, dict):
        raise SweepError(f"{where}: a sweep file is a YAML mapping with method, metric and parameters")
    if not config.get("name"):
        raise SweepError(f"{where}: 'name' is missing: it names the sweep (the W&B group of its runs)")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", str(config["name"])):
        raise SweepError(f"{where}: name={config['name']!r}: use letters, digits, '-', '_' and '.' only")
    if config.get("method") not in METHODS:
        raise SweepError(f"{where}: method={config.get('method')!r} is not valid; choose one of: {', '.join(METHODS)}")
    metric = config.get("metric")
    if metric is not None and (not isinstance(metric, dict) or not metric.get("name")):
        raise SweepError(f"{where}: metric needs a name, e.g. metric: {{name: val_loss, goal: minimize}}")
    if config["method"] == "bayes" and metric is None:
        raise SweepError(f"{where}: method=bayes needs a metric to optimise: metric: {{name: ..., goal: ...}}")
    _check_top_level_keys(config, where)
    parameters = config.get("parameters")
    if not isinstance(parameters, dict) or not parameters:
        raise SweepError(f"{where}: 'parameters' is missing or empty: give at least one knob to sweep")
    for key, spec in parameters.items():
        if isinstance(spec, dict) and isinstance(spec.get("parameters"), dict):
            inner = next(iter(spec["parameters"]), "norm")
            raise SweepError(
                f"{where}: parameters.{key} nests parameters (W&B's nested form), which zoo sweep does not read; "
                f"name each knob by its dotted key instead, e.g. parameters: {{{key}.{inner}: {{values: [...]}}}}"
            )
        if not isinstance(spec, dict) or not any(name in spec for name in PARAMETER_FIELDS):
            raise SweepError(
                f"{where}: parameters.{key} needs one of 'value', 'values' or a distribution (min/max), got {spec!r}"
            )
        _check_values(spec, f"{where}: parameters.{key}")
        check_distribution(spec, f"{where}: parameters.{key}")
        if config["method"] == "grid":
            _check_grid_axis(spec, f"{where}: parameters.{key}")
    _check_schema(config, where)


def _check_top_level_keys(config: dict, where: str) -> None:
    """Name a top-level key that no W&B sweep file has (``paramters:``), with the nearest keys there are."""
    known = [*sweeps_engine().config.schema.validator.schema.get("properties", {}), *NEWER_KEYS]
    for key in config:
        if key not in known:
            hint = did_you_mean(str(key), known, "; ", cutoff=0.6) or f"; the keys of a sweep file: {', '.join(known)}"
            raise SweepError(f"{where}: {key!r} is not a key of a sweep file{hint}")


GRID_DISTRIBUTIONS = ("int_uniform", "q_uniform")  # what W&B's grid enumerates, beside value and values


def _check_grid_axis(spec: dict, where: str) -> None:
    """A parameter of a grid is a list of points: ``value``, ``values``, or a range that W&B enumerates."""
    if "probabilities" in spec:
        raise SweepError(f"{where}: method=grid takes no probabilities (it runs every value); leave them out")
    distribution = None if "value" in spec or "values" in spec else distribution_of(spec, where)
    if distribution and distribution not in GRID_DISTRIBUTIONS:
        raise SweepError(
            f"{where}: W&B's grid does not enumerate distribution {distribution}; method=grid takes values, value, "
            f"int_uniform or q_uniform (a range with its step q), or use method=random to draw from it"
        )


def _check_values(spec: dict, where: str) -> None:
    """A parameter's ``values`` is a non-empty list without repeats, and never given beside ``value``."""
    if "value" in spec and "values" in spec:
        raise SweepError(f"{where} has both 'value' and 'values'; keep one (values: [a, b] sweeps a and b)")
    if "values" not in spec:
        return
    values = spec["values"]
    if not isinstance(values, list) or not values:
        raise SweepError(f"{where}.values={values!r} is not valid; it must be a non-empty list, e.g. values: [a, b]")
    for i, value in enumerate(values):  # 1 and 1.0, or 1 and true, are two values to the CLI
        if any(value == other and type(value) is type(other) for other in values[:i]):
            raise SweepError(f"{where}.values lists {value!r} twice; each value is one trial (per seed)")


def _check_schema(config: dict, where: str) -> None:
    """W&B's JSON schema of sweep files, with the path of the offending field."""
    schema = sweeps_engine().config.schema
    checked = {key: value for key, value in config.items() if key not in NEWER_KEYS}
    for error in schema.validator.iter_errors(checked):
        place = ".".join(str(part) for part in error.absolute_path) or "sweep"
        raise SweepError(f"{where}: {place}: {error.message}")
    for key, spec in config["parameters"].items():
        try:
            schema.validate_min_max(key, spec)
        except ValueError as error:
            raise SweepError(f"{where}: parameters.{error.args[0]}") from error


def varied_keys(config: dict) -> list[str]:
    """The parameters that take more than one value (``values`` with several, or a distribution)."""
    return [
        key for key, spec in config["parameters"].items() if "value" not in spec and len(spec.get("values", [0, 1])) > 1
    ]


def make_trial(config: dict, params: dict) -> Trial:
    """The :class:`Trial` of one point of the sweep: its run name and W&B job type come from the varied knobs
    (``<sweep>-trial`` where nothing varies and no seed is set: ``runs/<sweep>/`` holds the sweep's state)."""
    varied = [key for key in varied_keys(config) if key != SEED_KEY]
    labels = _short_keys(varied)
    job_type = ",".join(f"{labels[key]}={_shown(labels[key], params[key])}" for key in varied)
    parts = [config["name"], *(_name_part(labels[key], params[key]) for key in varied)]
    if SEED_KEY in params:
        parts.append(f"s{params[SEED_KEY]}")
    if len(parts) == 1:  # nothing varied, no seed: the sweep's own name is its state folder's
        parts.append("trial")
    ordered = {key: params[key] for key in config["parameters"] if key in params}  # the file's order
    return Trial(name="-".join(parts), params=ordered, job_type=job_type)


def _short_keys(keys: list[str]) -> dict:
    """Each dotted key's last part (``model.pe`` -> ``pe``), or the whole key where two last parts clash."""
    leaves = [key.rsplit(".", 1)[-1] for key in keys]
    return {key: leaf if leaves.count(leaf) == 1 else key for key, leaf in zip(keys, leaves, strict=True)}


def _name_part(label: str, value: object) -> str:
    """A categorical name stands alone (``learned``, ``bahdanau``: :func:`_shown`); a number says whose it is
    (``n_heads4``)."""
    value = _shown(label, value)
    text = value if isinstance(value, str) else f"{label}{_format(value)}"
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", str(text))  # "-" kept: 1e-30 and 1e+30 named apart


def _shown(label: str, value: object) -> object:
    """A parameter's value as a trial's name shows it: a config file laid over the base (a ``config``
    parameter) by its name (``configs/encoder_decoder/recurrent/bahdanau.yaml`` -> ``bahdanau``)."""
    return Path(value).stem if label == "config" and isinstance(value, str) else value


def _format(value: object) -> str:
    """``lr0.001``, ``lr1e-30``, ``lr1e30`` (no ``+``)."""
    return f"{value:.4g}".replace("e+", "e") if isinstance(value, float) else str(value)


def expand(config: dict, count: int | None = None, seed: int = 0, names: dict | None = None) -> list[Trial]:
    """The trials of a ``grid`` or ``random`` sweep, in a fixed order.

    Args:
        config: a checked sweep configuration.
        count: at most this many trials (``random`` needs it, or ``run_cap`` in the file).
        seed: the seed of the random search, so that the same command draws the same trials.
        names: the configuration whose varied knobs name the trials (the sweep as recorded, whose grid may
            be larger than this file's); ``config`` by default.

    Returns:
        The trials, as W&B's sweep engine proposes them.

    Raises:
        SweepError: a grid over a continuous distribution, a random search without a count, or two trials
            that would get the same run name.
    """
    engine, method = sweeps_engine(), config["method"]
    count = count or config.get("run_cap")
    checked = {key: value for key, value in config.items() if key not in NEWER_KEYS}
    try:
        if method == "grid":
            runs = engine.next_runs(checked, [], n=_grid_size(config))
        elif method == "random":
            if not count:
                raise SweepError("method=random needs --count N (how many trials to draw) or run_cap in the file")
            state = random.getstate()
            random.seed(seed)
            runs = engine.next_runs(checked, [], n=count)
            random.setstate(state)
        else:
            raise SweepError(f"expand() is for grid and random sweeps, not {method}")
    except ValueError as error:
        raise SweepError(f"{config['name']}: {error}") from error
    trials = [trial_of(names or config, run) for run in runs if run]
    trials = _unique(trials)  # a random search may draw the same point twice: it is one run
    return trials[:count] if count else trials


def _grid_size(config: dict) -> int:
    size = 1
    for spec in config["parameters"].values():
        if "values" in spec:
            size *= len(spec["values"])
        elif "value" in spec:
            continue
        elif distribution_of(spec, "") == "int_uniform":  # checked already: it raises nothing here
            size *= spec["max"] - spec["min"] + 1
        elif "q" in spec:  # W&B's grid: numpy.arange(min, max, q), max left out
            size *= len(numpy.arange(spec["min"], spec["max"], spec["q"]))
    return size


def _unique(trials: list[Trial]) -> list[Trial]:
    seen = {}
    for trial in trials:
        if trial.name in seen and seen[trial.name].params != trial.params:
            raise SweepError(
                f"two trials would share the run name {trial.name!r}: {seen[trial.name].params} and {trial.params} "
                f"(a number is named by its first 4 significant digits); choose values, or a range, that differ "
                f"within those digits"
            )
        seen.setdefault(trial.name, trial)
    return list(seen.values())


def trial_of(config: dict, run) -> Trial:
    """The :class:`Trial` of a ``sweeps.SweepRun`` that the engine proposed."""
    return make_trial(config, {key: plain(spec["value"]) for key, spec in run.config.items()})


def plain(value: object) -> object:
    """A numpy scalar from the sweep engine as the Python number it stands for (for names, JSON and the CLI)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (list, dict, str)) else value
