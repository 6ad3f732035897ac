"""Every table and the report say what they show: the sweep, the data, the training budget and the command
that made them; a short budget's learning curves say how few points they have."""

import html
import io
import re
import textwrap

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.fake_runs import write_run
from zoo.compare.terminal import console_for, say


def shows(runs, command: str, points: int = 3) -> list[str]:
    steps = ", ".join(str(step) for step in (100, 200, 300)[:points])
    return [
        f"Shows sweep pe-sweep; data multi30k; budget trainer.max_steps=600; 6 runs; made by: {command}.",
        "Baseline: pe=sinusoidal, the paper's value (Vaswani et al. 2017) on a tie, 3 runs each; --baseline pe=rope "
        "would compare against that instead.",
        "Seeds vary initial weights (no dropout: every dropout is 0) only; fixed: data order (data.seed=0): a "
        "verdict holds for this data order.",
        f"Learning curves: val_bleu was measured {points} times a run (at step {steps}): each curve has {points} "
        f"points, too few for its shape to say much.",
    ]


def test_the_table_says_what_it_shows_in_every_format(runs_dir, compare, compare_json):
    status, out, _ = compare(runs_dir, "--format", "markdown")
    below = out.split("\n\n", 1)[1].splitlines()
    assert status == 0 and below[:4] == shows(runs_dir, f"python -m zoo compare {runs_dir} --format markdown")
    status, out, _ = compare(runs_dir)
    assert all(line in out for line in shows(runs_dir, f"python -m zoo compare {runs_dir}"))
    result = compare_json(runs_dir)
    assert result["shows"] == shows(runs_dir, f"python -m zoo compare {runs_dir} --format json")[0]
    assert result["command"] == f"python -m zoo compare {runs_dir} --format json" and result["curve_points"] == 3


def test_the_report_says_it_in_its_title_block_and_under_its_table(runs_dir, compare, tmp_path):
    report = tmp_path / "report.html"
    assert compare(runs_dir, "--report", report)[0] == 0
    page = report.read_text()
    command = f"python -m zoo compare {runs_dir} --report {report}"
    block = "".join(f'<p class="shows">{html.escape(line)}</p>' for line in shows(runs_dir, command))
    assert f'<h1>zoo compare: val_bleu of pe-sweep</h1>{block}<div class="table"><table>' in page
    # once: it was under the table too
    assert all(page.count(html.escape(line)) == 1 for line in shows(runs_dir, command))
    assert '</table></div><p class="note">val_bleu: mean \u00b1 sample standard deviation' in page
    # the chart's title, in plotly's JSON
    assert "band \\u00b1 1 sample standard deviation (n - 1), as the table's \\u00b1 (3 points a curve)" in page


def test_runs_of_several_sweeps_data_and_budgets_list_each(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE, group="other", **{"trainer.max_steps": 300, "data.path": "/data/iwslt14/"})
    shown = compare_json(runs)["shows"]
    assert shown.startswith(
        "Shows sweeps other, pe-sweep; data iwslt14, multi30k; budget trainer.max_steps=300/600; 6 runs; made by: "
    ), shown


def test_a_curve_of_many_points_is_not_remarked(tmp_path, compare_json):
    runs = tmp_path / "runs"
    curve = [(100 * step, 20.0 + step) for step in range(1, 6)]  # five validations
    for seed in (1, 2):
        write_run(runs, f"ed-s{seed}", curve, seed=seed)
    result = compare_json(runs)
    assert result["curve_points"] is None and not any(re.match("Learning curves", n) for n in result["notes"])
    assert result["shows"].startswith("Shows runs of no sweep; data multi30k; budget trainer.max_steps=600; 2 runs")


def test_speed_columns_are_marked_as_not_tested_for_noise_in_every_format(runs_dir, compare, compare_json, tmp_path):
    """tokens/s and wall time stood beside the verdicts as if tested (6.09k against 9.42k, then 9.05k against
    8.93k on a rerun): they measure the machine's load as much as the knob."""
    note = "† tokens/s and wall time are not tested for noise: they measure the machine's load as much as the knob."
    out = compare(runs_dir, "--format", "markdown")[1]
    assert out.splitlines()[0].endswith("| params | tokens/s † | wall time † |") and note in out
    assert "tokens/s †" in compare(runs_dir, "--wide")[1] and note in compare(runs_dir, "--wide")[1]
    assert "tokens/s †" not in compare(runs_dir)[1]  # the terminal's default table has no speed column
    result = compare_json(runs_dir)
    assert result["not_tested_for_noise"] == ["tokens_per_sec", "wall_time_s"] and note in " ".join(result["notes"])
    csv_lines = compare(runs_dir, "--format", "csv")[1].splitlines()
    assert csv_lines[0].endswith(",not_tested_for_noise")
    assert all(line.endswith(",tokens_per_sec;wall_time_s") for line in csv_lines[1:])
    report = tmp_path / "report.html"
    compare(runs_dir, "--report", report)
    page = report.read_text()
    assert "<th>tokens/s †</th><th>wall time †</th>" in page and note.replace("'", "&#x27;") in page


def test_data_made_by_its_module_is_named_by_the_module(tmp_path, compare_json):
    """The quickstart's digit reversal has no data.path: its table said `data unknown`."""
    runs = tmp_path / "runs"
    reversal = {"data.path": None, "data.class_path": "zoo.data.ReversalDataModule"}
    write_config(runs, "sinusoidal", SINUSOIDAL, **reversal)
    write_config(runs, "rope", ROPE, **reversal)
    assert "; data ReversalDataModule; " in compare_json(runs)["shows"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_notes_wrap_between_words_on_a_terminal_and_stay_whole_in_a_file(monkeypatch):
    """A note folded at the terminal's edge was cut mid-word; a file or a pipe keeps one line per note."""
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.delenv("NO_COLOR", raising=False)
    note = "Δ: the difference of each configuration's mean from the baseline's, in val_loss units"
    for file, expected in ((io.StringIO(), [note]), (Terminal(), textwrap.wrap(note, 40))):
        say(console_for(file), note)
        shown = [line.rstrip() for line in re.sub(r"\x1b\[[0-9;]*m", "", file.getvalue()).splitlines()]
        assert shown == expected


def test_only_a_knob_the_paper_has_a_value_of_is_said_to_be_at_the_papers_value():
    """``init_weights=None`` (an option of fit, not a knob of the paper's base model) was "the paper's value
    (Vaswani et al. 2017)" on a tie: a missing value of the paper's matched the option's unset one."""
    from collections import Counter

    from zoo.compare.baseline_choice import _rule

    tie = Counter({"None": 3, "'a.ckpt'": 3})
    assert _rule("init_weights", None, tie) == "the first in sorted order on a tie, 3 runs each"
    assert _rule("model.pe", "sinusoidal", Counter({"'sinusoidal'": 3, "'rope'": 3})) == (
        "the paper's value (Vaswani et al. 2017) on a tie, 3 runs each"
    )
