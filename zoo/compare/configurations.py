"""Configurations: the knobs that differ between runs, the runs of one configuration (its seeds), and the
baseline that every other configuration is compared with."""

from __future__ import annotations

import json
from collections import Counter

from zoo.compare.arguments import CompareError, baseline_pairs
from zoo.compare.records import NOT_APPLYING, Run
from zoo.knobs import paper_values
from zoo.messages import meant
from zoo.runs.identity import BOOKKEEPING_FIELDS, UNMEASURED_DATA_FIELDS, is_seed

# Where a run ran: the same training on a GPU or a CPU, with any launcher. Under DDP the number of ranks
# (devices x num_nodes) multiplies the batch of a step, but the config does not say it ("auto" is every device
# of the machine it ran on), and seeds of one configuration run on several machines.
PLACEMENT = ("trainer.accelerator", "trainer.strategy", "trainer.devices", "trainer.num_nodes")

# Fields that name, place or display a run but do not change what it learns: a run's bookkeeping fields
# (zoo.runs.folders, one list for run names, resume and this table), where it ran, and more of display, logging,
# profiling, checkpoint loading and data loading (kept in run identities, so that the names of runs recorded
# before stay theirs). Not among them: trainer.callbacks and trainer.plugins, which may change what is trained
# (StochasticWeightAveraging, EarlyStopping, a precision plugin).
BOOKKEEPING = (
    set(BOOKKEEPING_FIELDS)
    | set(UNMEASURED_DATA_FIELDS)
    | set(PLACEMENT)
    | {
        "trainer.default_root_dir",
        "trainer.logger",
        "trainer.log_every_n_steps",  # how often training metrics are logged
        "trainer.enable_checkpointing",
        "trainer.enable_autolog_hparams",
        "trainer.barebones",  # no logging, checkpoints or progress bar; the same steps
        "trainer.profiler",
        "trainer.model_registry",  # where the checkpoint is uploaded
        "trainer.detect_anomaly",  # a debugging check of the backward pass
        "trainer.benchmark",  # which cuDNN kernels, and trainer.deterministic whether deterministic ones: speed
        "trainer.deterministic",  # settings, as matmul_precision
        "trainer.inference_mode",  # evaluation under torch.inference_mode or no_grad: the same numbers
        "trainer.num_sanity_val_steps",  # a check before training, in eval mode
        "trainer.limit_test_batches",  # fit does not test (a test of part of its split is recorded apart)
        "trainer.limit_predict_batches",
        "weights_only",  # how a checkpoint is unpickled
    }
)


Configuration = tuple  # the values of the differing knobs, in the order of ``knobs``

def differing_knobs(runs: list[Run]) -> list[str]:
    """The config keys whose values differ between ``runs`` (a key a run lacks counts as ``None``), leaving out
    seeds, bookkeeping fields (:data:`BOOKKEEPING`), the runs where the knob does not apply
    (:data:`NOT_APPLYING`: a Transformer's and an RNN's ``model.pe`` differ in nothing trained) and a
    ``trainer.max_time`` that stopped no run (:func:`time_limit_stopped_none`), sorted."""
    keys = {key for run in runs for key in run.config if key not in BOOKKEEPING and not is_seed(key)}
    if time_limit_stopped_none(runs):
        keys.discard("trainer.max_time")
    values = {key: {repr(v) for run in runs if (v := run.config.get(key)) != NOT_APPLYING} for key in keys}
    return sorted(key for key in keys if len(values[key]) > 1)


def time_limit_stopped_none(runs: list[Run]) -> bool:
    """Whether every run with a ``trainer.max_time`` trained its whole ``trainer.max_steps`` (its last logged
    step is the last step, 0-based training logs or the final validation): the limit stopped none of them, so
    runs that differ in it alone trained alike (the caption still shows each budget)."""
    for run in runs:
        steps = run.config.get("trainer.max_steps")
        if run.config.get("trainer.max_time") is None:
            continue
        last = max((step for points in run.history.values() for step, _ in points), default=None)
        if not isinstance(steps, int) or isinstance(steps, bool) or steps <= 0 or last is None or last < steps - 1:
            return False
    return True


def sort_key(value) -> tuple:
    """Numbers in numeric order before everything else in text order."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (0, value, "") if number else (1, 0, str(value))


def knob_value(value: object) -> object:
    """A knob's value as a configuration holds it: a list or a mapping (``model.betas``, ``trainer.callbacks``)
    as its JSON text, ``[0.9, 0.98]``, as the command line spells it (a list cannot be a dictionary key)."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value


def group_by_configuration(runs: list[Run], knobs: list[str]) -> dict[Configuration, list[Run]]:
    """The runs of each configuration (its seeds), configurations sorted by knob values."""
    groups: dict[Configuration, list[Run]] = {}
    for run in runs:
        groups.setdefault(tuple(knob_value(run.config.get(knob)) for knob in knobs), []).append(run)
    return dict(sorted(groups.items(), key=lambda item: tuple(sort_key(v) for v in item[0])))


def _preferred(values: list, knob: str):
    counts = Counter(repr(v) for v in values)
    ordered = sorted(set(values), key=sort_key)
    paper = paper_values()
    return max(ordered, key=lambda v: (counts[repr(v)], knob in paper and v == paper[knob], -ordered.index(v)))


def default_baseline(groups: dict[Configuration, list[Run]], knobs: list[str]) -> Configuration:
    """The baseline when ``--baseline`` is not given.

    Rule: each knob is preferred at its most common value among the runs (ties: the value of the original
    Transformer, :func:`zoo.knobs.paper_values`, then the first in sorted order); the baseline is the configuration
    with the most knobs at their preferred value, the first such in sorted order.
    """
    runs_values = [config for config, runs in groups.items() for _ in runs]
    preferred = [_preferred([config[i] for config in runs_values], knob) for i, knob in enumerate(knobs)]
    configs = list(groups)
    return max(configs, key=lambda c: (sum(a == b for a, b in zip(c, preferred, strict=True)), -configs.index(c)))


def knob_named(key: str, knobs: list[str], option: str = "--baseline key", also: tuple[str, ...] = ()) -> str:
    """The knob ``key`` names, with or without its prefix (``pe``: ``model.pe``), or one of ``also`` (the other
    names the option takes: ``configurations`` for ``--all_pairs``).

    Raises:
        CompareError: where ``key`` names no knob that differs here, said as of ``option``, with the nearest name.
    """
    if key in also:
        return key
    matches = [knob for knob in knobs if knob == key] or [knob for knob in knobs if knob.rsplit(".", 1)[-1] == key]
    if len(matches) != 1:
        names = [*(knob.rsplit(".", 1)[-1] for knob in knobs), *also]
        raise CompareError(
            f"{option} {key!r} is not a knob that differs here; knobs: {', '.join(knobs)}"
            f"{''.join(f'; or {name!r}' for name in also)}{meant(option, key, names)}"
        )
    return matches[0]


def value_matches(value: object, text: str) -> bool:
    """Whether a knob's ``value`` is what ``text`` says, spelt as on the command line or as the table shows it:
    ``false``/``False`` for a bool, ``0.001``/``1e-3`` for a number, ``null``/``None`` for unset."""
    if str(value) == text:
        return True
    if isinstance(value, bool) or value is None:
        return text.lower() == {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, (int, float)):
        try:
            return float(text) == value
        except ValueError:
            return False
    return False


def parse_baseline(text: str, groups: dict[Configuration, list[Run]], knobs: list[str]) -> Configuration:
    """The configuration that ``--baseline KEY=VALUE[,KEY=VALUE]`` picks; keys may drop their prefix
    (``pe=rope`` for ``model.pe=rope``); knobs it leaves out are chosen as in :func:`default_baseline`.

    Raises:
        CompareError: for a malformed pair, a key that is not a differing knob or is given twice, or values
            that match no configuration (naming the values each knob takes).
    """
    wanted = {}
    for key, value in baseline_pairs(text):
        index = knobs.index(knob_named(key, knobs))
        if index in wanted:
            raise CompareError(f"--baseline {text!r} gives {knobs[index]} twice; give each knob one value")
        wanted[index] = value
    matching = {c: runs for c, runs in groups.items() if all(value_matches(c[i], v) for i, v in wanted.items())}
    if not matching:
        values = "; ".join(f"{k}: {', '.join(sorted({str(c[i]) for c in groups}))}" for i, k in enumerate(knobs))
        raise CompareError(f"--baseline {text!r} matches no configuration; values here: {values}")
    return default_baseline(matching, knobs)
