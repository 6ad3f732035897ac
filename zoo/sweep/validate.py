"""Every sweep parameter checked against the CLI schema before the first trial starts.

Each trial's arguments go through the parser of ``python -m zoo fit`` itself (the :class:`zoo.cli.lightning_cli.ZooCLI`
parser), which type-checks every value and rejects unknown options, then through the checks ``fit`` makes
before training: the zoo's of trainer fields and options, and the task's of its knobs together (``d_model``
divisible by ``n_heads``), with the network built on the meta device (no memory, no data loaded). A key must
also name a field of the resolved config, so that a typo fails at once with the nearest valid keys.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import math

from zoo.cli.command_line import did_you_mean
from zoo.cli.parser_only import cli_parser
from zoo.sweep.spec import SEED_KEY, SweepError


def parse(parser, arguments: list[str]):
    """Parse ``fit ...`` arguments as the CLI would.

    Returns:
        The parsed namespace of the ``fit`` subcommand.

    Raises:
        SweepError: with the CLI's own one-line error (field, value, what is valid).
    """
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            return parser.parse_args(arguments)[arguments[0]]
        except SystemExit as exit_:
            lines = [line for line in stderr.getvalue().splitlines() if line and not line.startswith("(python")]
            raise SweepError(" ".join(line.strip() for line in lines).removeprefix("zoo: error: ")) from exit_


def check_before_training(namespace) -> None:
    """The checks ``fit`` makes of a parsed config before it loads data: the zoo's of the trainer fields and
    options (:func:`zoo.cli.config_checks.check_options`), the task's of its knobs, by building the task with its
    network on the meta device (the vocabulary, which comes from the data, at a stand-in size), the data
    module's of its settings, by building it (it loads nothing until ``fit`` prepares it), the task's of
    the data settings (``check_settings``: a ``data.block_size`` beyond ``model.max_len``), and that
    ``data.path`` is a folder, or a hub id with the hub in reach (:func:`zoo.data.loading.check_reachable`).

    Raises:
        SweepError: the one-line message of the check that failed.
    """
    import torch

    from zoo.cli.config_checks import ConfigError, check_options

    try:
        check_options(namespace, "fit")
        with torch.device("meta"):
            task = _built(namespace.model, vocab_size=STAND_IN_VOCABULARY)
        datamodule = _built(namespace.data)
        task.check_settings(datamodule)
        _check_reachable_once(datamodule.path)  # a missing folder, or a hub id offline: every trial would fail
    except (ConfigError, ValueError, FileNotFoundError, ConnectionError) as error:
        raise SweepError(str(error)) from error


@functools.lru_cache(maxsize=8)
def _check_reachable_once(path: str) -> None:
    """:func:`zoo.data.loading.check_reachable`, once per path for all of a grid's trials (a hub id asks the
    hub)."""
    from zoo.data.loading import check_reachable

    check_reachable(path)


def _built(section, **overrides):
    """The object a parsed ``class_path``/``init_args`` section of the config stands for."""
    module, _, name = section.class_path.rpartition(".")
    return getattr(importlib.import_module(module), name)(**{**section.init_args.as_dict(), **overrides})


STAND_IN_VOCABULARY = 64  # the vocabulary size a task is built with to check its knobs (the data sets it in fit)


def check_trials(trials, command_for) -> None:
    """Check the whole command of every planned trial (all of a grid; a random search's drawn ones) as ``fit``
    checks it before training, so that a combination of valid values that ``fit`` refuses (``d_model`` 30 with
    ``n_heads`` 4) fails the sweep before its first trial, not as a failed trial.

    Each value is parsed once, with the others at the sweep's base, and what it changes in the parsed config
    is applied to a copy of the base for each trial (not each trial parsed: some 40 s for a grid of 384);
    trials that differ in seeds only are checked once.

    Raises:
        SweepError: naming the trial, its parameters and the check that failed.
    """
    from zoo.runs.identity import is_seed
    from zoo.sweep.command import zoo_arguments

    parser = cli_parser()
    arguments = zoo_arguments(command_for({}))
    base = parse(parser, arguments)
    flat_base, missing = vars(base.as_flat()), object()
    changes: dict[tuple[str, str], dict] = {}  # (key, repr(value)) -> the parsed fields that value changes
    checked = set()
    for trial in trials:
        varied = tuple((key, repr(value)) for key, value in trial.params.items() if not is_seed(key))
        if varied in checked:
            continue
        checked.add(varied)
        namespace = base.clone()
        try:
            for key, value in trial.params.items():
                if (key, repr(value)) not in changes:
                    parsed = vars(parse(parser, zoo_arguments(command_for({key: value}))).as_flat())
                    changes[key, repr(value)] = {k: v for k, v in parsed.items() if flat_base.get(k, missing) != v}
                for path, parsed_value in changes[key, repr(value)].items():
                    namespace[path] = parsed_value
            check_before_training(namespace)
        except SweepError as error:
            params = ", ".join(f"{key}={value!r}" for key, value in trial.params.items())
            raise SweepError(
                f"trial {trial.name} ({params}) is rejected by `zoo {' '.join(arguments[:3])}`: {error}"
            ) from error


def field_names(namespace) -> list[str]:
    """The dotted keys of a parsed ``fit`` config, as sweeps and run records name them (``model.pe``)."""
    from zoo.runs.record import flatten

    return list(flatten(namespace.as_dict()))


SEED_FIELDS = {  # what each seed of a fit config seeds, for a sweep that names neither
    SEED_KEY: "the run's seed (initial weights, dropout, and the data order unless data.seed is given), which every "
    "shipped sweep varies",
    "data.seed": "the data order only (by default the run's seed_everything)",
}


def check_keys(keys: list[str], fields: list[str], where: str) -> None:
    """Raise ``SweepError`` for a key that is no field of the config, naming the nearest valid keys."""
    for key in keys:
        if key not in fields:
            near = did_you_mean(key, fields, "; ", cutoff=0.6)  # seed: seed_everything (a prefix) first
            meant = [f"{name}: {text}" for name, text in SEED_FIELDS.items() if name in near]
            hint = f"{near} ({'; '.join(meant)})" if meant else near or "; `python -m zoo fit --help` lists them"
            raise SweepError(f"parameter {key!r} is not a field of `zoo {where}`{hint}")


def values_to_check(spec: dict) -> list:
    """The values of one parameter worth showing the parser: all of ``values``, or a distribution's ends."""
    if "value" in spec:
        return [spec["value"]]
    if "values" in spec:
        return list(spec["values"])
    if "min" in spec and "max" in spec:
        ends = [spec["min"], spec["max"]]
        if spec.get("distribution", "").startswith(("log_uniform", "q_log_uniform")) and "values" not in spec.get(
            "distribution", ""
        ):
            return [math.exp(end) for end in ends]  # log_uniform's min/max are natural logs
        return ends
    return [spec.get("mu", 0.0)]


def check_metric_logged(metric: dict | None, class_path: str, where: str) -> None:
    """Raise ``SweepError`` if the sweep's ``metric.name`` is not a metric that the command's task logs (the
    sweep would run and then have nothing to rank its trials by)."""
    if not metric:
        return
    module, _, name = class_path.rpartition(".")
    logged = getattr(importlib.import_module(module), name).logged_metrics()
    if metric["name"] not in logged:
        raise SweepError(
            f"metric.name={metric['name']!r} is not logged by `zoo {where}` ({name}); it logs: {', '.join(logged)}"
        )
    check_metric_goal(metric)


def check_metric_goal(metric: dict) -> None:
    """Raise ``SweepError`` if ``metric.goal`` is against the metric's direction (``maximize`` of a loss): the
    run records keep a loss's lowest value as its best, which the sweep would then rank the wrong way."""
    from zoo.runs.record import EVALUATION_METRICS, lower_is_better

    name, goal = metric["name"], metric.get("goal", "minimize")  # W&B's default goal
    if not any(name.endswith(f"_{known}") for known in EVALUATION_METRICS):  # val_exact_match too
        return
    wanted = "minimize" if lower_is_better(name) else "maximize"
    if goal != wanted:
        better = "lower" if wanted == "minimize" else "higher"
        raise SweepError(
            f"metric.goal={goal!r} is not valid for metric.name={name!r}, whose {better} values are better (its "
            f"run records keep the {'lowest' if better == 'lower' else 'highest'} as its best); set goal: {wanted}"
        )


def check_against_cli(config: dict, command_for) -> None:
    """Check every parameter name and value of a sweep with the CLI's parser.

    Args:
        config: a checked sweep configuration.
        command_for: ``params -> argument list`` of a trial (see :func:`zoo.sweep.command.trial_command`).

    Raises:
        SweepError: one line naming the parameter, the value and what the CLI says about it.
    """
    from zoo.sweep.command import zoo_arguments

    parser = cli_parser()
    arguments = zoo_arguments(command_for({}))
    where = " ".join(arguments[:3])
    base = {key: values_to_check(spec)[0] for key, spec in config["parameters"].items()}
    try:
        namespace = parse(parser, arguments)
    except SweepError as error:
        raise SweepError(f"the sweep's command fails without any parameter (`zoo {where}`): {error}") from error
    try:
        check_before_training(namespace)
    except SweepError as error:
        try:  # a parameter may be what makes the command valid (a schedule without an end, for a time budget)
            check_before_training(parse(parser, zoo_arguments(command_for(base))))
        except SweepError:
            raise SweepError(f"the sweep's command fails without any parameter (`zoo {where}`): {error}") from error
    check_keys(list(config["parameters"]), field_names(namespace), where)
    check_metric_logged(config.get("metric"), namespace.model.class_path, where)
    for key, spec in config["parameters"].items():
        for value in values_to_check(spec):
            try:
                check_before_training(parse(parser, zoo_arguments(command_for({**base, key: value}))))
            except SweepError as error:
                listed = spec.get("value") if isinstance(spec.get("value"), list) else None  # value: [a, b]: one
                hint = f"; value: takes one value (this list); one trial each is values: {listed!r}" if listed else ""
                raise SweepError(f"parameters.{key}={value!r} is rejected by `zoo {where}`: {error}{hint}") from error
