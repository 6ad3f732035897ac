"""Several metrics at once (``--metric val_loss,val_bleu``): one comparison per metric, each its own family of
tests with its own verdicts, against one baseline, and the rows whose metrics disagree on which way the
variation went (better by one metric, worse by another), which a single-metric table would hide."""

from __future__ import annotations

from zoo.compare.ablation import Comparison, compare
from zoo.compare.arguments import CompareError
from zoo.compare.cells import label


def parse_metrics(text: str | None) -> list[str | None]:
    """``val_loss,val_bleu`` -> ``["val_loss", "val_bleu"]``; ``None`` (the task's metric) -> ``[None]``.

    Raises:
        CompareError: for an empty name or a metric named twice.
    """
    if text is None:
        return [None]
    metrics = [name.strip() for name in text.split(",")]
    if not all(metrics) or len(set(metrics)) != len(metrics):
        raise CompareError(f"--metric {text!r} is not valid; name each metric once, separated by commas")
    return metrics


def compare_metrics(runs, metrics: list[str | None], **settings) -> list[Comparison]:
    """One :func:`.ablation.compare` per metric, with the same settings and the same baseline.

    Raises:
        CompareError: as :func:`.ablation.compare`; or when the metrics' default baselines differ (their runs
            left out differ), naming them, so that one ``--baseline`` settles it.
    """
    comparisons = [compare(runs, metric, **settings) for metric in metrics]
    baselines = {label(c.rows[0]) for c in comparisons}
    if len(baselines) > 1:
        chosen = "; ".join(f"{c.metric}: {label(c.rows[0])}" for c in comparisons)
        raise CompareError(f"the metrics have different baselines ({chosen}); choose one with --baseline KEY=VALUE")
    return comparisons


def _better(comparison: Comparison, delta: float) -> bool | None:
    if delta == 0 or delta != delta:  # no direction, or nan
        return None
    return delta < 0 if comparison.lower_is_better else delta > 0


def disagreements(comparisons: list[Comparison]) -> list[dict]:
    """The rows (by configuration) that one metric calls better than the baseline and another worse.

    Returns:
        ``[{"row": label, "metrics": {metric: {"direction": "better"|"worse", "delta": d, "verdict": v}}}]``.
    """
    by_row: dict[str, dict] = {}
    for comparison in comparisons:
        for row in comparison.rows:
            d = row.difference
            if d is None or (better := _better(comparison, d.delta)) is None:
                continue
            by_row.setdefault(label(row), {})[comparison.metric] = {
                "direction": "better" if better else "worse",
                "delta": d.delta,
                "verdict": d.verdict,
            }
    return [
        {"row": name, "metrics": metrics}
        for name, metrics in by_row.items()
        if len({entry["direction"] for entry in metrics.values()}) > 1
    ]


def disagreement_lines(comparisons: list[Comparison]) -> list[str]:
    """The note under several tables: which rows' metrics disagree in direction, each with its verdict."""
    found = disagreements(comparisons)
    names = ", ".join(c.metric for c in comparisons)
    if not found:
        return [f"Directions: every row goes the same way (better or worse than the baseline) by {names}."]
    lines = [f"Rows whose metrics disagree in direction ({names}; better or worse than the baseline):"]
    for entry in found:
        parts = [f"{metric} {e['direction']} ({e['verdict']})" for metric, e in entry["metrics"].items()]
        lines.append(f"  {entry['row']}: {', '.join(parts)}")
    return lines
