"""A table says what noise its verdicts cover and against what: what the seeds varied (from the runs' records),
why the baseline is the baseline, and where the arms ran apart in what is no knob (threads, precision, library
versions), beside the cells that it affects; in every format."""

import csv
import html
import io
import json

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.fake_runs import write_run

ORDER_FIXED = (
    "Seeds vary initial weights (no dropout: every dropout is 0) only; fixed: data order (data.seed=0): a verdict "
    "holds for this data order."
)
TIE = (
    "Baseline: pe=sinusoidal, the paper's value (Vaswani et al. 2017) on a tie, 3 runs each; --baseline pe=rope "
    "would compare against that instead."
)


def _every_format(runs, compare, compare_json, tmp_path) -> dict:
    """The lines under the table in each format (the terminal's and Markdown's, JSON's keys, CSV's columns, the
    report's text)."""
    report = tmp_path / "report.html"
    rows = list(csv.DictReader(io.StringIO(compare(runs, "--format", "csv")[1])))
    return {
        "table": compare(runs)[1],
        "markdown": compare(runs, "--format", "markdown")[1],
        "json": json.dumps(compare_json(runs)),
        "csv": json.dumps([(row["seeds_vary"], row["baseline_reason"]) for row in rows]),
        "html": (compare(runs, "--report", report), report.read_text())[1],
    }


def test_every_format_says_the_seeds_left_the_data_order_fixed_and_why_the_baseline(
    runs_dir, compare, compare_json, tmp_path
):
    """The runs of made-up records all have data.seed 0 (as every run before issue 51): their verdicts hold for
    one data order; sinusoidal and RoPE tie at 3 runs each and the paper's value breaks the tie."""
    for fmt, text in _every_format(runs_dir, compare, compare_json, tmp_path).items():
        for line in (ORDER_FIXED, TIE):
            said = json.dumps(line)[1:-1] if fmt in ("json", "csv") else html.escape(line) if fmt == "html" else line
            assert said in text, (fmt, line)
    result = compare_json(runs_dir)
    assert result["seeds_vary"] == ORDER_FIXED and result["baseline_reason"] == TIE


def test_seeds_that_vary_the_data_order_and_dropout_say_so(tmp_path, compare_json):
    runs = tmp_path / "runs"
    for pe, seeds in (("sinusoidal", SINUSOIDAL), ("rope", ROPE)):
        for seed, (best, final, _, _) in enumerate(seeds, start=1):
            knobs = {"model.pe": pe, "data.seed": seed, "model.dropout": 0.1}
            write_run(runs, f"ed-{pe}-s{seed}", [(100, best - 5.0), (200, best), (300, final)], seed=seed, knobs=knobs)
    assert compare_json(runs)["seeds_vary"] == (
        "Seeds vary: initial weights, dropout, data order (seed_everything 1, 2, 3; data.seed 1, 2, 3)."
    )


def test_seeds_that_vary_the_data_order_in_some_configurations_only_say_which(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL)  # data.seed 0 in every run
    for seed, (best, final, _, _) in enumerate(ROPE, start=1):
        write_run(runs, f"ed-rope-s{seed}", [(200, best), (300, final)], seed=seed,
                  knobs={"model.pe": "rope", "data.seed": seed})  # fmt: skip
    assert compare_json(runs)["seeds_vary"] == (
        "Seeds vary: initial weights (no dropout: every dropout is 0), data order (in 1 of 2 configurations) "
        "(seed_everything 1, 2, 3; data.seed 0, 1, 2, 3)."
    )


def test_the_baseline_given_says_what_the_default_would_be(runs_dir, compare_json):
    assert compare_json(runs_dir, "--baseline", "pe=rope")["baseline_reason"] == (
        "Baseline: pe=rope, as --baseline gave; without it sinusoidal, the paper's value (Vaswani et al. 2017) on a "
        "tie, 3 runs each; --baseline pe=sinusoidal would compare against that instead."
    )


def test_the_most_common_value_is_said_with_its_count(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL[:2])
    write_config(runs, "rope", ROPE)
    assert compare_json(runs)["baseline_reason"].startswith("Baseline: pe=rope, the most common value, 3 of 5 runs;")


def _threads(folder, threads: int, matmul: str = "highest") -> None:
    """Give a fake run the devices record of a CPU fit (zoo.runs.devices.run_devices) and a matmul precision."""
    summary = json.loads((folder / "summary.json").read_text())
    summary.update(devices={"accelerator": "cpu", "count": 1, "names": ["cpu"], "cores": 2, "threads": threads},
                   precision="32-true", libraries={"torch": "2.13.0", "lightning": "2.6.6"})  # fmt: skip
    (folder / "summary.json").write_text(json.dumps(summary))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "matmul_precision": matmul}))


def test_threads_apart_mark_the_speed_cells_and_not_the_verdict(tmp_path, compare):
    runs = tmp_path / "runs"
    for folder in write_config(runs, "sinusoidal", SINUSOIDAL):
        _threads(folder, 1)
    for folder in write_config(runs, "rope", ROPE):
        _threads(folder, 2)
    out = compare(runs, "--format", "markdown")[1]
    rope = next(line for line in out.splitlines() if line.startswith("|  | rope |"))
    assert rope.endswith("| 1k ‡ | 50 s ‡ |") and "within noise (Holm, alpha 0.05) |" in rope
    assert (
        "‡ Beside a verdict, tokens/s or wall time: the row ran apart from the baseline in what is no knob, so that "
        "cell is as much that difference's as the knob's: threads per process (1: pe=sinusoidal (base); 2: "
        "pe=rope; tokens/s and wall time)." in out
    )


def test_matmul_precision_apart_marks_the_verdict_too(tmp_path, compare):
    runs = tmp_path / "runs"
    for folder in write_config(runs, "sinusoidal", SINUSOIDAL):
        _threads(folder, 1)
    for folder in write_config(runs, "rope", ROPE):
        _threads(folder, 1, matmul="medium")
    out = compare(runs, "--format", "markdown")[1]
    rope = next(line for line in out.splitlines() if line.startswith("|  | rope |"))
    assert "within noise (Holm, alpha 0.05) ‡ |" in rope and rope.endswith("| 1k ‡ | 50 s ‡ |")
    said = "matmul precision (highest: pe=sinusoidal (base); medium: pe=rope; the verdict, tokens/s and wall time)"
    assert said in out


def test_runs_that_ran_alike_have_no_mark(tmp_path, compare):
    runs = tmp_path / "runs"
    for folder in [*write_config(runs, "sinusoidal", SINUSOIDAL), *write_config(runs, "rope", ROPE)]:
        _threads(folder, 1)
    out = compare(runs, "--format", "markdown")[1]
    assert "‡" not in out
