"""``--metric val_loss,val_bleu``: one table, family and verdict per metric, against one baseline, and the rows
whose metrics disagree in direction flagged."""

import csv
import io
import json

import pytest
from scipy import stats

from tests.compare.fake_runs import write_run

# (val_bleu best, val_loss best) per seed: rope has a better BLEU and a worse loss; learned is better by both
CONFIGS = {
    "sinusoidal": [(30.0, 2.00), (31.0, 2.02), (32.5, 1.98)],
    "rope": [(33.0, 2.10), (34.0, 2.12), (36.0, 2.09)],
    "learned": [(31.5, 1.95), (32.0, 1.97), (33.0, 1.96)],
}


@pytest.fixture
def runs(tmp_path):
    runs = tmp_path / "runs"
    for pe, seeds in CONFIGS.items():
        for seed, (bleu, loss) in enumerate(seeds, start=1):
            folder = write_run(runs, f"ed-{pe}-s{seed}", [(100, bleu - 5.0), (200, bleu)], knobs={"model.pe": pe},
                               seed=seed)  # fmt: skip
            lines = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
            lines += [{"step": 100, "val_loss": loss + 0.5}, {"step": 200, "val_loss": loss}]
            (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
            summary = json.loads((folder / "summary.json").read_text())
            summary["final"]["val_loss"], summary["best"]["val_loss"] = loss, {"value": loss, "step": 200}
            (folder / "summary.json").write_text(json.dumps(summary))
    return runs


def test_one_verdict_per_metric_and_the_disagreeing_rows(runs, compare_json):
    result = compare_json(runs, "--metric", "val_loss,val_bleu", "--baseline", "pe=sinusoidal")
    loss, bleu = result["comparisons"]
    assert (loss["metric"], loss["lower_is_better"], bleu["metric"], bleu["lower_is_better"]) == (
        "val_loss", True, "val_bleu", False)  # fmt: skip
    for comparison, index in ((loss, 1), (bleu, 0)):
        rows = {row["model.pe"]: row for row in comparison["rows"]}
        raw = {pe: stats.ttest_ind([s[index] for s in CONFIGS[pe]], [s[index] for s in CONFIGS["sinusoidal"]],
                                   equal_var=False).pvalue for pe in ("rope", "learned")}  # fmt: skip
        assert {pe: rows[pe]["p_value"] for pe in raw} == pytest.approx(raw, rel=1e-12)
        low, high = sorted(raw.values())
        holm = {pe: max(2 * low, high) if p == high else 2 * low for pe, p in raw.items()}  # each family of two
        assert {pe: rows[pe]["p_adjusted"] for pe in raw} == pytest.approx(holm, rel=1e-12)
    (flagged,) = result["disagreements"]
    assert flagged["row"] == "pe=rope"
    assert {metric: entry["direction"] for metric, entry in flagged["metrics"].items()} == {
        "val_loss": "worse", "val_bleu": "better"}  # fmt: skip


def test_tables_in_turn_then_the_directions(runs, compare):
    status, out, _ = compare(runs, "--metric", "val_loss,val_bleu", "--baseline", "pe=sinusoidal", "--format",
                             "markdown")  # fmt: skip
    assert status == 0
    assert out.index("| val_loss best |") < out.index("| val_bleu best |")
    tail = out[out.index("Rows whose metrics disagree in direction (val_loss, val_bleu;") :]
    assert "  pe=rope: val_loss worse (beyond noise), val_bleu better (within noise)" in tail
    assert "pe=learned" not in tail


def test_csv_has_a_line_per_configuration_and_metric(runs, compare):
    status, out, _ = compare(runs, "--metric", "val_loss,val_bleu", "--format", "csv", "--baseline", "pe=sinusoidal")
    lines = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and [(line["metric"], line["model.pe"]) for line in lines] == [
        (metric, pe) for metric in ("val_loss", "val_bleu") for pe in ("sinusoidal", "learned", "rope")]  # fmt: skip
    assert lines[0]["val_loss_best_mean"] and not lines[0]["val_bleu_best_mean"]


def test_a_report_has_a_section_per_metric(runs, compare, tmp_path):
    report = tmp_path / "r.html"
    status, _, _ = compare(runs, "--metric", "val_loss,val_bleu", "--baseline", "pe=sinusoidal", "--report", report)
    page = report.read_text()
    assert status == 0 and "<h2>val_loss</h2>" in page and "<h2>val_bleu</h2>" in page
    assert "pe=rope: val_loss worse (beyond noise), val_bleu better (within noise)" in page


@pytest.mark.parametrize("metric", ["val_loss,", "val_loss,val_loss"])
def test_a_bad_metric_list_is_one_line(runs, compare, metric):
    status, out, err = compare(runs, "--metric", metric)
    assert (status, out) == (2, "")
    assert err == (f"zoo compare: error: --metric {metric!r} is not valid; name each metric once, separated by "
                   "commas\n")  # fmt: skip
