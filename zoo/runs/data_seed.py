"""``data.seed`` left out of a command: the run's own seed, or the seed a recorded run trained with.

The training batches and their order are drawn from ``data.seed`` (``zoo/data/batching.py``). A command that
leaves it out shuffles with its ``seed_everything``, so that the seeds of a sweep vary the data order as well as
the initial weights and dropout (Dodge et al. 2020: data order and initialisation contribute comparable variance
in fine-tuning; Bouthillier et al. 2021, "Accounting for Variance in Machine Learning Benchmarks": randomise every
source of variation across repeats). A command that continues or evaluates a recorded run takes that run's
recorded value instead, so that a run keeps its order: a run folder whose record has no ``data.seed`` trained
with :data:`EARLIER_DEFAULT`, which ``--ckpt_path last`` looks for where no run of the seed's own order is found.
"""

from __future__ import annotations

from pathlib import Path

from jsonargparse import Namespace

from zoo.runs.folders import RunFolderError, recorded_config
from zoo.runs.resolution import resolve_run_dir

EARLIER_DEFAULT = 0  # data.seed of a recorded run whose command left it out and whose record has no data.seed


def left_out(config: Namespace) -> bool:
    """Whether the command's data module takes a ``seed`` and the command gives none (``None``)."""
    init_args = config.data.get("init_args") if config.get("data") is not None else None
    return init_args is not None and "seed" in init_args and init_args.get("seed") is None


def recorded_owner(config: Namespace) -> Path | None:
    """The run folder holding ``config.ckpt_path`` (``runs/<name>/checkpoints/<file>``) where it has a record,
    else ``None``."""
    ckpt_path = config.get("ckpt_path")
    if not ckpt_path or ckpt_path == "last" or not Path(ckpt_path).is_file():
        return None
    owner = Path(ckpt_path).resolve().parent.parent
    return owner if (owner / "summary.json").exists() else None


def candidates(config: Namespace) -> list[int]:
    """The values ``data.seed`` may take for a command that leaves it out, in the order to try: the recorded
    one of the run whose checkpoint it names; for ``--ckpt_path last`` the run's seed, then
    :data:`EARLIER_DEFAULT` (a run folder that trained with it); else the run's seed."""
    owner = recorded_owner(config)
    recorded = (recorded_config(owner) or {}).get("data.seed") if owner is not None else None
    if isinstance(recorded, int):
        return [recorded]
    seed = config.get("seed_everything")
    if config.get("ckpt_path") == "last" and seed != EARLIER_DEFAULT:
        return [seed, EARLIER_DEFAULT]
    return [seed]


def settle(config: Namespace, run_dir: Path | None) -> None:
    """Set a ``data.seed`` the command left out (:func:`left_out`): the value recorded in ``run_dir``'s
    ``config.json`` where it has one (a rank of a launch whose first rank resolved the folder, a DDP child), else
    the run's ``seed_everything``; one given is kept."""
    if not left_out(config):
        return
    recorded = (recorded_config(run_dir) or {}).get("data.seed") if run_dir is not None else None
    config.data.init_args.seed = recorded if isinstance(recorded, int) else config.get("seed_everything")


def resolve_following(subcommand: str, config: Namespace, flat: dict) -> Path | None:
    """:func:`zoo.runs.resolution.resolve_run_dir`, with a ``data.seed`` the command left out set first
    (``config`` and its flat fields) to each of its :func:`candidates` in turn, until one resolves: a later one
    is tried only where ``--ckpt_path last`` found no run of the earlier one.

    Raises:
        RunFolderError: the first candidate's, where none resolves.
    """
    if not left_out(config):
        return resolve_run_dir(subcommand, config, flat)
    first = None
    for seed in candidates(config):
        config.data.init_args.seed = seed
        try:
            return resolve_run_dir(subcommand, config, {**flat, "data.seed": seed})
        except RunFolderError as error:
            first = first or error
            if config.get("ckpt_path") != "last":  # a run was found, and refused for another reason
                raise
    raise first
