"""``--report``: one self-contained HTML file with the table, the learning curves and a chart per knob."""

import html
import json
import re

import pytest

from tests.compare.conftest import ROPE, SINUSOIDAL


def plotly_figures(page: str) -> list[dict]:
    """The ``data`` of every chart, from the ``Plotly.newPlot(id, data, layout, config)`` calls of the page."""
    decoder, figures = json.JSONDecoder(), []
    for match in re.finditer(r'Plotly\.newPlot\(\s*"[^"]+",\s*', page):
        figures.append(decoder.raw_decode(page, match.end())[0])
    return figures


def test_report_is_self_contained_with_curves_and_knob_charts(runs_dir, compare, tmp_path):
    report = tmp_path / "report.html"
    status, out, err = compare(runs_dir, "--report", report)
    assert status == 0 and err == f"report: {report}\n"
    page = report.read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)  # nothing fetched: plotly.js is inlined
    assert "<td>31.17 ± 1.26</td>" in page and "Welch&#x27;s t-test" in page
    _, curves, by_pe = plotly_figures(page)  # one knob (pe): the forest plot, the curves and one chart
    mean_line = [trace for trace in curves if trace.get("name") == "pe=sinusoidal (base) (n=3)"][0]
    assert mean_line["x"] == [100, 200, 300]
    assert mean_line["y"] == [sum(s[0] for s in SINUSOIDAL) / 3 - 5.0, sum(s[0] for s in SINUSOIDAL) / 3,
                              sum(s[1] for s in SINUSOIDAL) / 3]  # fmt: skip
    runs = [trace for trace in by_pe if "error_y" not in trace]  # each point a run; beside them mean ± sd
    assert [(trace["name"], trace["y"]) for trace in runs] == [
        ("sinusoidal", [s[0] for s in SINUSOIDAL]),
        ("rope", [s[0] for s in ROPE]),
    ]


def test_a_report_path_that_cannot_be_written_fails_before_the_table(runs_dir, compare, tmp_path):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "folder.html").mkdir()
    cases = [
        (tmp_path / "afile" / "r.html", f"{tmp_path / 'afile'} is a file"),
        (tmp_path / "folder.html", f"{tmp_path / 'folder.html'} is a folder"),
        (tmp_path, "it is not an .html name, and the report is HTML"),
        (tmp_path / "r.txt", "it is not an .html name, and the report is HTML"),  # HTML under any name was written
        (tmp_path / "missing" / "r.html", f"the folder '{tmp_path / 'missing'}' does not exist"),  # it was made
    ]
    for report, problem in cases:
        status, out, err = compare(runs_dir, "--report", report)
        assert (status, out) == (2, "")  # no table printed before the error
        assert (
            err
            == f"zoo compare: error: --report='{report}' cannot be written ({problem}); name an .html file to write\n"
        )
    assert not (tmp_path / "missing").exists() and not (tmp_path / "r.txt").exists()


def test_a_report_replaces_its_own_file_only(runs_dir, compare, tmp_path):
    """An existing file at --report was overwritten without a word: a user's notes.html was lost."""
    report = tmp_path / "r.html"
    assert compare(runs_dir, "--report", report)[0] == 0
    status, _, err = compare(runs_dir, "--report", report)  # its own report: refreshed, and said
    assert (status, err) == (0, f"report: {report} (replacing the earlier one)\n")
    notes = tmp_path / "notes.html"
    notes.write_text("<p>my notes</p>")
    status, out, err = compare(runs_dir, "--report", notes)
    assert (status, out) == (2, "") and notes.read_text() == "<p>my notes</p>"
    assert err == (
        f"zoo compare: error: --report='{notes}' cannot be written ({notes} exists and was not written by `python "
        f"-m zoo compare`; remove it or name another file); name an .html file to write\n"
    )


def test_report_holds_the_paired_table_and_the_plan(runs_dir, compare, tmp_path):
    report = tmp_path / "report.html"
    status, out, _ = compare(runs_dir, "--paired", "--plan", "--baseline", "pe=sinusoidal", "--format", "markdown",
                             "--report", report)  # fmt: skip
    page = report.read_text()
    assert status == 0 and "paired t-test (two-sided) over the seeds common to both arms" in page
    assert "<td>+3.17</td><td>0.29</td>" in page  # the paired Δ and its sd, as printed
    plan = out[out.index("Plan for val_bleu") :].splitlines()
    assert plan and all(f'<p class="note">{html.escape(line)}</p>' in page for line in plan)


def test_forest_axis_holds_zero_with_margin(runs_dir, compare, compare_json, tmp_path):
    report = tmp_path / "report.html"
    assert compare(runs_dir, "--report", report)[0] == 0
    page = report.read_text()
    decoder, match = json.JSONDecoder(), re.search(r'Plotly\.newPlot\(\s*"[^"]+",\s*', page)  # the forest plot
    _, end = decoder.raw_decode(page, match.end())
    layout = decoder.raw_decode(page, re.compile(r"\s*,\s*").match(page, end).end())[0]
    low, high = layout["xaxis"]["range"]
    rope = compare_json(runs_dir)["rows"][1]
    ends = [min(0.0, rope["delta_ci_low"]), max(0.0, rope["delta_ci_high"])]
    pad = 0.08 * (ends[1] - ends[0])  # neither the zero line nor the interval's end on the plot's edge
    assert pad > 0 and [low, high] == pytest.approx([ends[0] - pad, ends[1] + pad], rel=1e-12)
