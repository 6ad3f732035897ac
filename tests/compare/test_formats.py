"""Every output format parses and carries the same numbers."""

import csv
import io
import json
import subprocess
import sys

import pytest


def test_csv_rows_equal_json_rows(runs_dir, compare, compare_json):
    rows = compare_json(runs_dir)["rows"]
    status, out, _ = compare(runs_dir, "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and len(parsed) == 2
    for line, row in zip(parsed, rows, strict=True):
        assert line["model.pe"] == row["model.pe"] and line["runs"] == ";".join(row["runs"])
        assert float(line["val_bleu_best_mean"]) == pytest.approx(row["val_bleu_best_mean"], rel=1e-12)
    assert parsed[0]["p_value"] == "" and float(parsed[1]["p_value"]) == pytest.approx(rows[1]["p_value"])


def test_markdown_is_a_table_with_the_notes(runs_dir, compare, compare_json):
    rope = compare_json(runs_dir)["rows"][1]
    status, out, _ = compare(runs_dir, "--format", "markdown")
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert status == 0 and len(table) == 4 and len({line.count("|") for line in table}) == 1
    cells = [cell.strip() for cell in table[3].strip("|").split("|")]
    assert cells[:3] == ["", "rope", "3"]
    assert cells[3] == f"{rope['val_bleu_best_mean']:.2f} ± {rope['val_bleu_best_std']:.2f}"
    assert cells[5] == f"{rope['delta']:+.2f} [{rope['delta_ci_low']:+.2f}, {rope['delta_ci_high']:+.2f}]"
    verdict = f"{rope['verdict']} (Holm, alpha 0.05)"
    assert cells[6:9] == [f"{rope['p_value']:.3g}", f"{rope['p_adjusted']:.3g}", verdict]
    assert "Welch's t-test" in out and "an adjusted p < 0.05 marks a difference beyond seed noise" in out


def test_terminal_table_shows_baseline_and_test(runs_dir, compare):
    status, out, _ = compare(runs_dir)
    assert status == 0
    assert "base" in out and "sinusoidal" in out and "rope" in out and "31.17 ± 1.26" in out
    assert "Welch's t-test (two-sided, unequal variances); Holm p: adjusted" in out


def test_python_m_zoo_compare_dispatches(runs_dir):
    result = subprocess.run([sys.executable, "-m", "zoo", "compare", str(runs_dir), "--format", "json"],
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [row["n"] for row in json.loads(result.stdout)["rows"]] == [3, 3]


def test_a_row_that_differs_in_two_knobs_is_named_as_their_joint_effect(tmp_path, compare):
    from tests.compare.conftest import ROPE, SINUSOIDAL, write_config

    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE, **{"trainer.max_steps": 900})  # another pe and a longer budget at once
    write_config(runs, "learned", ROPE)
    status, out, _ = compare(runs, "--format", "markdown")
    (note,) = [line for line in out.splitlines() if line.startswith("Rows that differ")]
    assert status == 0 and note.endswith("not one knob's: model.pe=rope, trainer.max_steps=900."), note


def test_runs_of_two_data_sets_say_that_their_difference_is_also_the_data(tmp_path, runs_dir, compare_json):
    from tests.compare.conftest import ROPE, SINUSOIDAL, write_config

    runs = tmp_path / "mixed"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE, **{"data.path": "../shared/data/iwslt14"})
    notes = compare_json(runs)["notes"]
    (note,) = [note for note in notes if note.startswith("The runs are of different data")]
    assert "(data.path)" in note and "compares the data sets as much as the knobs" in note
    assert not any(n.startswith("The runs are of different data") for n in compare_json(runs_dir)["notes"])


def test_how_often_metrics_are_logged_is_no_knob(tmp_path, compare_json):
    """Rows that differed only in trainer.log_every_n_steps were called the joint effect of it and the knob."""
    from tests.compare.conftest import ROPE, SINUSOIDAL, write_config

    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL, **{"trainer.log_every_n_steps": 5})
    write_config(runs, "rope", ROPE, **{"trainer.log_every_n_steps": 50, "trainer.enable_checkpointing": False})
    result = compare_json(runs)
    assert result["knobs"] == ["model.pe"] and not any("joint" in note for note in result["notes"])


@pytest.mark.parametrize("columns", [80, 260])
def test_a_narrow_terminal_folds_cells_instead_of_cutting_them(tmp_path, compare, monkeypatch, columns):
    """At 80 columns, trainer.limit_train_batches and trainer.limit_val_batches were both ``trainer.li…``."""
    import os

    from tests.compare.conftest import ROPE, SINUSOIDAL, write_config

    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)
    write_config(runs, "rope", ROPE, **{"trainer.limit_train_batches": 0.5, "trainer.limit_val_batches": 0.25})
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=None: os.terminal_size((columns, 24)))
    status, out, _ = compare(runs)
    table = out[: out.index("val_bleu: mean")]
    assert status == 0 and "…" not in table
    if columns == 260:  # the table's width with two knobs of 27 characters
        assert "trainer.limit_train_batches" in table and "31.17 ± 1.26" in table
