"""What the seeds of a comparison varied, from its runs' records, in one line under every table: the noise a
verdict "beyond noise" is beyond. ``seed_everything`` draws the initial weights and the dropout masks (where a
dropout is above 0); ``data.seed`` the training batches and their order (``zoo/data/batching.py``), and by default
follows ``seed_everything`` (:mod:`zoo.runs.data_seed`); the data sets themselves (the synthetic task's pairs
too, ``data.generation_seed``) and the validation batches are the same for every seed."""

from __future__ import annotations

from zoo.compare.ablation import Comparison

SEED = "seed_everything"
DATA_SEED = "data.seed"


def _varies(comparison: Comparison, key: str) -> tuple[int, int]:
    """Of the configurations with two runs or more, how many have more than one value of ``key``, and how many
    there are."""
    several = [row for row in comparison.rows if len(row.runs) > 1]
    return sum(len({repr(run.config.get(key)) for run in row.runs}) > 1 for row in several), len(several)


def _values(comparison: Comparison, key: str) -> str:
    values = {run.config.get(key) for row in comparison.rows for run in row.runs} - {None}
    return ", ".join(map(str, sorted(values, key=str)))


def _dropout(comparison: Comparison) -> bool:
    """Whether any run trained with a dropout above 0 (``model.dropout``, ``model.activation_dropout``, ...)."""
    return any(
        isinstance(value, (int, float)) and value > 0
        for row in comparison.rows
        for run in row.runs
        for key, value in run.config.items()
        if key.startswith("model.") and key.endswith("dropout")
    )


def seeds_varied(comparison: Comparison) -> str:
    """``Seeds vary: initial weights, dropout, data order (seed_everything 1, 2, 3; data.seed 1, 2, 3).``, or
    what they leave fixed (``...; fixed: data order (data.seed=0): a verdict holds for this data order``), from
    the configurations with several runs; one line."""
    weights, several = _varies(comparison, SEED)
    order, _ = _varies(comparison, DATA_SEED)
    if not several:
        return "Seeds: every configuration has one run, so no seed noise is measured and no test is made."
    dropout = _dropout(comparison)
    drawn = "initial weights, dropout" if dropout else "initial weights (no dropout: every dropout is 0)"
    sources = [(drawn, SEED, weights), ("data order", DATA_SEED, order)]
    varied = [what + ("" if n == several else f" (in {n} of {several} configurations)") for what, _, n in sources if n]
    fixed = [f"{what.split(' (')[0]} ({key}={_values(comparison, key)})" for what, key, n in sources if not n]
    seeds = f"{SEED} {_values(comparison, SEED)}; {DATA_SEED} {_values(comparison, DATA_SEED)}"
    if not varied:
        return f"Seeds vary nothing: the runs of a configuration share their seeds ({seeds})."
    if not fixed:
        return f"Seeds vary: {', '.join(varied)} ({seeds})."
    held = " and ".join(part.split(" (")[0] for part in fixed)
    return (
        f"Seeds vary {', '.join(varied)} only; fixed: {'; '.join(fixed)}: a verdict holds for this {held}."
    )
