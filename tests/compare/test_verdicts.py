"""A verdict says which arm is better in every format; the terminal's table fits 100 columns, its notes are a
few lines that point to docs/compare.md; ``--plan`` says what would help a row that 50 seeds would not
resolve; ``--report`` with no name writes under the runs' folder."""

import csv
import io
import os
import re

import pytest

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.fake_runs import write_run
from tests.compare.test_report import plotly_figures
from zoo.compare.statistics import MOST_SEEDS, minimum_detectable_effect

# Post- against pre-norm of a language model, lower val_loss is better: pre is worse beyond noise (Δ +0.02),
# as in the README's five-minute ablation
POST = [2.382, 2.386, 2.388]
PRE = [2.401, 2.405, 2.409]


def loss_runs(runs_dir, **knobs):
    lm = {"model.class_path": "zoo.tasks.LanguageModelTask", "data.path": "../shared/data/tinyshakespeare"}
    for position, values in (("post", POST), ("pre", PRE)):
        for seed, value in enumerate(values, start=1):
            write_run(runs_dir, f"do-{position}-s{seed}", [(250, value + 0.1), (300, value)], metric="val_loss",
                      seed=seed, group="do-position", tokens_per_sec=(24000.0 + seed,), wall_time_s=51.0,
                      knobs={**lm, "model.norm_position": position, **knobs})  # fmt: skip
    return runs_dir


@pytest.fixture
def narrow(monkeypatch):
    """A terminal of 100 columns."""
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=None: os.terminal_size((100, 24)))


def test_the_verdict_says_which_arm_is_better_in_every_format(tmp_path, compare, compare_json):
    runs = loss_runs(tmp_path / "runs")
    verdict = "pre worse than post, beyond noise (Holm, alpha 0.05)"
    row = compare_json(runs)["rows"][1]
    assert (row["delta"] > 0, row["verdict"], row["direction"], row["finding"]) == (
        True, "beyond noise", "worse", verdict)  # fmt: skip
    assert f"| {verdict} |" in compare(runs, "--format", "markdown")[1]
    assert list(csv.DictReader(io.StringIO(compare(runs, "--format", "csv")[1])))[1]["finding"] == verdict
    assert verdict in compare(runs, "--wide")[1]
    (paired,) = compare_json(runs, "--paired")["paired"]["rows"]
    assert (paired["direction"], paired["finding"]) == ("worse", verdict)
    pre = [line for line in compare(runs)[1].splitlines() if line.startswith("pre ")]
    assert len(pre) == 1 and pre[0].rstrip().endswith("worse than base, beyond noise")
    report = tmp_path / "r.html"
    compare(runs, "--report", report, "--paired")
    page = report.read_text()
    welch, paired = page.split("paired t-test")
    assert f"<td class='wrap'>{verdict}</td>" in welch and f"<td class='wrap'>{verdict}</td>" in paired
    forest = plotly_figures(page)[0][0]
    assert forest["text"] == [verdict]  # the forest plot's hover


def test_a_higher_metric_better_and_a_numeric_knob_name_the_arms(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL, **{"model.n_heads": 8})
    write_config(runs, "rope", [(b + 9.0, f + 9.0, t, w) for b, f, t, w in SINUSOIDAL], **{"model.n_heads": 4})
    write_config(runs, "learned", SINUSOIDAL, **{"model.n_heads": 8})
    rows = {row["model.pe"]: row for row in compare_json(runs, "--baseline", "pe=sinusoidal")["rows"]}
    better = "n_heads=4 + rope better than n_heads=8 + sinusoidal, beyond noise (Holm, alpha 0.05)"
    assert (rows["rope"]["direction"], rows["rope"]["finding"]) == ("better", better)
    assert (rows["learned"]["direction"], rows["learned"]["finding"]) == (None, "within noise (Holm, alpha 0.05)")
    assert rows["sinusoidal"]["finding"] is None


@pytest.mark.parametrize("setup", ["loss", "pe", "grid"])
def test_the_terminal_table_fits_100_columns_and_its_notes_point_to_the_guide(tmp_path, compare, narrow, setup):
    """At 100 columns every one of 14 columns wrapped (``2.38`` / ``5 ±``, ``beyon`` / ``d``) above 1,900
    characters of notes."""
    runs = tmp_path / "runs"
    if setup == "loss":
        loss_runs(runs)
    else:
        arms = [("layernorm", "sinusoidal", SINUSOIDAL), ("layernorm", "rope", [v + 4.0 for v, *_ in SINUSOIDAL])]
        if setup == "grid":  # 2 x 2: norm and pe
            arms += [("batchnorm", "sinusoidal", ROPE), ("batchnorm", "rope", SINUSOIDAL)]
        for norm, pe, seeds in arms:
            for seed, value in enumerate(seeds, start=1):
                value = value if isinstance(value, float) else value[0]
                write_run(runs, f"ed-{norm}-{pe}-s{seed}", [(100, value - 5.0), (200, value)], seed=seed,
                          knobs={"model.norm": norm, "model.pe": pe}, group="grid", wall_time_s=1700.0)  # fmt: skip
    status, out, _ = compare(runs, "--paired")
    lines = out.splitlines()
    rows = 2 if setup != "grid" else 4
    # the title, the header, its rule and one line per row: a cell that wrapped would add a line
    table = lines[: rows + 3]
    assert status == 0 and re.fullmatch(r"\S+: \d configurations", table[0].strip()) and set(table[2]) == {"─"}
    assert all(len(line) <= 100 for line in table) and lines[rows + 3].startswith("Shows ")
    notes = lines[rows + 3 : lines.index("")]
    core = notes[: next(i for i, line in enumerate(notes) if line.startswith("--wide adds")) + 1]
    # the caption, why the baseline, what the seeds varied, and four lines of what the numbers are
    assert len(core) <= 7 and sum(map(len, core)) < 1400 and core[-1].endswith("explained: docs/compare.md.")
    assert len(notes) == len(core) + (setup == "grid")  # and what only these runs need: a joint effect
    paired = lines[lines.index("") + 1 :]  # its title, header, rule, one line a variation, what r is
    assert paired[-1].startswith("r: Pearson correlation of the two arms' values")
    assert len(paired) == 3 + (rows - 1) + 1 and all(len(line) <= 100 for line in paired[1:-1])


def test_wide_shows_every_column_as_markdown_does(runs_dir, compare):
    header = compare(runs_dir, "--format", "markdown")[1].splitlines()[0]
    every = [cell.strip() for cell in header.strip("|").split("|")][1:]  # all but the label column
    wide = compare(runs_dir, "--wide")[1]
    narrow = compare(runs_dir)[1]
    assert all(name in wide for name in every)
    assert [name for name in every if name not in narrow[: narrow.index("Shows ")]] == [
        "val_bleu final", "Welch p", "MDE", "seeds to resolve", "params", "tokens/s †", "wall time †"]  # fmt: skip


def test_wide_keeps_each_row_on_one_line_on_a_narrow_terminal(runs_dir, compare, monkeypatch):
    """At 100 columns --wide folded headers and numbers mid-word (`norm_p` / `ositio` / `n`, `2.385` / `±`)."""
    monkeypatch.setenv("COLUMNS", "100")
    lines = compare(runs_dir, "--wide")[1].splitlines()
    table = lines[: lines.index(next(line for line in lines if line.startswith("Shows ")))]
    assert len(table) == 3 + 2 and max(map(len, table)) > 100  # title, header, rule, a line per row: none folded


def test_plan_says_what_would_help_a_row_that_50_seeds_would_not_resolve(tmp_path, compare, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "learned", [(b + 0.07, f, t, w) for b, f, t, w in SINUSOIDAL])  # Δ 0.07, spread 1.26
    row = compare_json(runs)["rows"][1]
    assert row["seeds_to_resolve"] == "more than 50"
    mde = minimum_detectable_effect(row["val_bleu_best_std"], MOST_SEEDS, row["val_bleu_best_std"], MOST_SEEDS)
    out = compare(runs, "--plan")[1]
    (line,) = [line for line in out.splitlines() if line.startswith("pe=learned: 50 seeds")]
    assert line.startswith(f"pe=learned: 50 seeds per arm detect |Δ| >= {mde:.3g}, and its Δ is +0.07, "
                           f"{mde / 0.07:.1f}x too small. What would help instead: a larger effect")  # fmt: skip
    assert "a longer training budget" in line and "--paired" in line


def test_a_report_with_no_name_goes_to_the_sweep_folder_never_the_working_folder(tmp_path, compare, monkeypatch):
    """``--report report.html`` (the README's) wrote into the repository's root, which git does not ignore."""
    work = tmp_path / "repo"
    work.mkdir()
    monkeypatch.chdir(work)
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE)
    status, _, err = compare(runs, "--report")
    assert (status, err) == (0, f"report: {runs / 'report-val_bleu.html'}\n")  # no sweep folder: beside the runs
    (runs / "pe-sweep").mkdir()  # what zoo sweep makes: runs/<sweep>/sweep.json
    status, _, err = compare(runs, "--report", "--metric", "val_bleu,train_loss")
    assert (status, err) == (0, f"report: {runs / 'pe-sweep' / 'report-val_bleu+train_loss.html'}\n")
    assert list(work.iterdir()) == []
    status, _, err = compare(runs, "--report", "mine.html")  # a name given is honoured as given
    assert status == 0 and (work / "mine.html").is_file()
