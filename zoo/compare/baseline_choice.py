"""Why the baseline is the baseline, said in the caption of every table: for each knob, its value and the rule
that chose it (``--baseline``, the most common value among the runs, or the paper's value on a tie), and the
``--baseline`` that would compare against another value instead (the verdicts are against the baseline, so
another baseline may give other verdicts)."""

from __future__ import annotations

from collections import Counter

from zoo.compare.arguments import baseline_pairs
from zoo.compare.configurations import Configuration, default_baseline, knob_named, sort_key
from zoo.knobs import paper_values


def _short(knob: str) -> str:
    return knob.removeprefix("model.")  # as the table's columns name it (zoo.compare.cells.short_knob)


def _rule(knob: str, value: object, counts: Counter) -> str:
    """Why the default baseline has ``knob`` at ``value``, ``counts`` being the runs of each of its values."""
    most, runs = max(counts.values()), counts[repr(value)]
    if runs < most:  # another knob's most common value decided the configuration
        return f"{runs} runs against {most} of its most common value: the configuration with most knobs at theirs"
    if list(counts.values()).count(most) == 1:
        return f"the most common value, {runs} of {sum(counts.values())} runs"
    if knob in paper_values() and paper_values()[knob] == value:  # a knob the paper has no value of: never
        return f"the paper's value (Vaswani et al. 2017) on a tie, {runs} runs each"
    return f"the first in sorted order on a tie, {runs} runs each"


def baseline_reason(groups: dict[Configuration, list], knobs: list[str], base: Configuration,
                    text: str | None) -> str:  # fmt: skip
    """``Baseline: norm_position=post, the paper's value (Vaswani et al. 2017) on a tie, 3 runs each;
    --baseline norm_position=pre would compare against that instead.``

    Args:
        groups: the counted runs of each configuration.
        knobs: the knobs that differ.
        base: the baseline configuration.
        text: ``--baseline`` as given, or ``None``.
    """
    if not knobs:
        return "Baseline: none (no knob differs between the runs)."
    given = {knob_named(key, knobs) for key, _ in baseline_pairs(text)} if text else set()
    default = default_baseline(groups, knobs)
    parts, others = [], []
    for i, knob in enumerate(knobs):
        counts = Counter(repr(config[i]) for config, runs in groups.items() for _ in runs)
        if knob in given:
            rule = "as --baseline gave" + ("" if default[i] == base[i] else
                                           f"; without it {default[i]}, {_rule(knob, default[i], counts)}")
        else:
            rule = _rule(knob, base[i], counts)
        parts.append(f"{_short(knob)}={base[i]}, {rule}")
        others += [f"{_short(knob)}={value}" for value in sorted({c[i] for c in groups} - {base[i]}, key=sort_key)]
    shown = " or ".join(others[:4]) + (" or ..." if len(others) > 4 else "")
    instead = f"; --baseline {shown} would compare against {'that' if len(others) == 1 else 'one of those'}" \
        " instead" if others else ""  # fmt: skip
    return f"Baseline: {'; '.join(parts)}{instead}."
