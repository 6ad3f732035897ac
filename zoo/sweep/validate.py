"""Every sweep parameter checked against the CLI schema before the first trial starts.

Each trial's arguments go through the parser of ``python -m zoo fit`` itself (the :class:`zoo.cli.ZooCLI`
parser), which type-checks every value and rejects unknown options without building a model or loading data.
A key must also name a field of the resolved config, so that a typo fails at once with the nearest valid keys.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import io
import math

from zoo.sweep.spec import SweepError


class _ParserReady(Exception):
    def __init__(self, parser) -> None:
        self.parser = parser


@functools.cache
def cli_parser():
    """The parser of ``python -m zoo`` (subcommands, links, zoo's own options), with nothing parsed or built."""
    from zoo.cli import ZooCLI

    class ParserOnly(ZooCLI):
        def parse_arguments(self, parser, args) -> None:
            raise _ParserReady(parser)

    try:
        ParserOnly(args=[])
    except _ParserReady as ready:
        return ready.parser
    raise RuntimeError("ZooCLI did not reach parse_arguments")


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


def field_names(namespace) -> list[str]:
    """The dotted keys of a parsed ``fit`` config, as sweeps and run records name them (``model.pe``)."""
    from zoo.tracking import flatten

    return list(flatten(namespace.as_dict()))


def check_keys(keys: list[str], fields: list[str], where: str) -> None:
    """Raise ``SweepError`` for a key that is no field of the config, naming the nearest valid keys."""
    for key in keys:
        if key not in fields:
            near = difflib.get_close_matches(key, fields, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(near)}?" if near else "; `python -m zoo fit --help` lists them"
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
    try:
        namespace = parse(parser, arguments)
    except SweepError as error:
        raise SweepError(f"the sweep's command fails without any parameter (`zoo {where}`): {error}") from error
    check_keys(list(config["parameters"]), field_names(namespace), where)
    check_metric_logged(config.get("metric"), namespace.model.class_path, where)
    base = {key: values_to_check(spec)[0] for key, spec in config["parameters"].items()}
    for key, spec in config["parameters"].items():
        for value in values_to_check(spec):
            try:
                parse(parser, zoo_arguments(command_for({**base, key: value})))
            except SweepError as error:
                raise SweepError(f"parameters.{key}={value!r} is rejected by `zoo {where}`: {error}") from error


def check_finished_trials(trials, command_for, runs_dir) -> None:
    """Refuse to skip a finished trial whose recorded configuration is not what the sweep would run now (the
    extra arguments after ``--`` or the config file changed): its result would be reported for a
    configuration it never had.

    Raises:
        SweepError: naming the trial and the fields that differ (the training budget may differ).
    """
    import json

    from zoo.run_folders import differences
    from zoo.sweep.command import zoo_arguments
    from zoo.sweep.state import is_finished
    from zoo.tracking import flatten

    parser = cli_parser()
    for trial in trials:
        run_dir = runs_dir / trial.name
        if not is_finished(run_dir) or not (run_dir / "config.json").exists():
            continue
        command = flatten(parse(parser, zoo_arguments(command_for(trial.params))).as_dict())
        differs = differences(json.loads((run_dir / "config.json").read_text()), command)
        if differs:
            raise SweepError(
                f"trial {trial.name} finished earlier with another configuration than this sweep would run: "
                f"{', '.join(differs[:4])}; pass another --runs_dir, or remove {run_dir} to run it again"
            )
