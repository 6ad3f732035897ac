"""Which runs, knobs, baseline and rows ``zoo compare`` picks."""

import json

import pytest

from tests.compare.conftest import ROPE, SINUSOIDAL, write_config
from tests.compare.fake_runs import write_run
from zoo.compare.records import history_from_rows


def test_knob_columns_are_exactly_the_differing_knobs(tmp_path, compare_json):
    runs = tmp_path / "runs"  # seeds, run names, runs_dir and data.seed differ too: they are no knobs
    write_config(runs, "sinusoidal", SINUSOIDAL, **{"model.n_heads": 8, "data.seed": 1})
    write_config(runs, "rope", ROPE, **{"model.n_heads": 4, "data.seed": 2})
    result = compare_json(runs)
    assert result["knobs"] == ["model.n_heads", "model.pe"]
    assert [list(row)[:2] for row in result["rows"]] == [["model.n_heads", "model.pe"]] * 2


# Where and how visibly each seed ran, one value per seed: none of it changes what a run learns.
RAN_ELSEWHERE = {
    "trainer.accelerator": ["cpu", "gpu", "auto"],
    "trainer.strategy": ["auto", "ddp", "ddp_spawn"],
    "trainer.devices": ["auto", 1, "0,1"],
    "trainer.num_nodes": [1, 2, 1],
    "trainer.profiler": [None, "simple", None],
    "trainer.barebones": [False, True, False],
    "trainer.enable_autolog_hparams": [True, False, True],
    "trainer.deterministic": [None, True, False],
    "trainer.benchmark": [None, True, False],
    "trainer.detect_anomaly": [False, True, False],
    "trainer.inference_mode": [True, False, True],
    "trainer.num_sanity_val_steps": [None, 0, 5],
    "trainer.limit_test_batches": [None, 2, 0.5],
    "trainer.model_registry": [None, "zoo", None],
    "weights_only": [None, True, False],
}


def test_where_a_run_ran_is_no_knob(tmp_path, compare_json):
    runs = tmp_path / "runs"
    for pe, seeds in (("sinusoidal", SINUSOIDAL), ("rope", ROPE)):
        for k, folder in enumerate(write_config(runs, pe, seeds)):
            config = json.loads((folder / "config.json").read_text())
            config.update({key: values[k] for key, values in RAN_ELSEWHERE.items()})
            (folder / "config.json").write_text(json.dumps(config))
    result = compare_json(runs)
    assert result["knobs"] == ["model.pe"] and [row["n"] for row in result["rows"]] == [3, 3]


@pytest.mark.parametrize(
    "key, values",
    [
        ("trainer.accumulate_grad_batches", [1, 2]),
        ("trainer.callbacks", [None, [{"class_path": "lightning.pytorch.callbacks.StochasticWeightAveraging"}]]),
        ("trainer.precision", ["32-true", "bf16-mixed"]),
        ("trainer.sync_batchnorm", [False, True]),
        ("model.betas", [[0.9, 0.98], [0.9, 0.99]]),
    ],
)
def test_a_setting_that_changes_training_stays_a_knob(tmp_path, compare_json, key, values):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL, **{key: values[0]})
    write_config(runs, "rope", ROPE, **{key: values[1]})
    result = compare_json(runs)
    assert result["knobs"] == sorted([key, "model.pe"]) and [row["n"] for row in result["rows"]] == [3, 3]
    # a list-valued knob (it stopped compare with "unhashable type: 'list'") is shown as the command line spells it
    assert {row[key] for row in result["rows"]} == {v if not isinstance(v, list) else json.dumps(v) for v in values}


def test_sweep_name_selects_runs_by_group(tmp_path, compare_json):
    runs = tmp_path / "runs"
    write_config(runs, "sinusoidal", SINUSOIDAL, group="pe")
    write_config(runs, "rope", ROPE, group="pe")
    write_run(runs, "other-sweep-run", [(100, 99.0)], knobs={"model.pe": "learned"}, group="norm")
    result = compare_json("pe", "--runs_dir", runs)
    assert sorted(run for row in result["rows"] for run in row["runs"]) == sorted(
        [f"ed-sinusoidal-s{i}" for i in (1, 2, 3)] + [f"ed-rope-s{i}" for i in (1, 2, 3)]
    )


def test_globs_and_folders_name_the_same_runs_once(runs_dir, compare_json):
    by_glob = compare_json(runs_dir / "ed-rope-*", runs_dir / "ed-sinusoidal-s1", runs_dir / "ed-rope-s1")
    assert [row["n"] for row in by_glob["rows"]] == [3, 1]  # baseline: the most common value (rope, 3 runs)
    assert [row["n"] for row in compare_json(runs_dir)["rows"]] == [3, 3]


def test_failed_and_running_runs_are_left_out_and_listed(runs_dir, compare, compare_json):
    write_run(runs_dir, "ed-rope-s4", [(100, 1.0)], knobs={"model.pe": "rope"}, seed=4, status="failed")
    write_run(runs_dir, "ed-rope-s5", [(100, 2.0)], knobs={"model.pe": "rope"}, seed=5, status="running")
    (runs_dir / "ed-rope-s6").mkdir()  # a run that stopped before training: only its W&B id
    (runs_dir / "ed-rope-s6" / "wandb_id").write_text("abcd1234")
    result = compare_json(runs_dir)
    assert result["rows"][1]["n"] == 3
    assert result["excluded"] == [
        {"run": "ed-rope-s4", "reason": "failed"},
        {"run": "ed-rope-s5", "reason": "running"},
        {"run": "ed-rope-s6", "reason": "no summary.json"},
    ]
    status, out, _ = compare(runs_dir)
    assert status == 0 and "Left out of the statistics" in out and "ed-rope-s4 (failed), ed-rope-s5 (running)" in out
    result = compare_json(runs_dir, "--include_unfinished", "--baseline", "pe=sinusoidal")
    assert (result["rows"][1]["model.pe"], result["rows"][1]["n"]) == ("rope", 5)
    assert [row["unfinished"] for row in result["rows"]] == [0, 2]  # the counted runs say what they are
    assert (
        "Unfinished runs counted (--include_unfinished), with their values from where they stopped, not from the "
        "end of their budget: ed-rope-s4, ed-rope-s5."
    ) in result["notes"]
    _, out, _ = compare(runs_dir, "--include_unfinished", "--format", "markdown")
    assert "| 5 (2 unfinished) |" in out
    # counted, it has no config: its status says why
    assert result["excluded"] == [
        {"run": "ed-rope-s6", "reason": "no summary.json"}
    ]  # its status says why it has no config


def test_a_seed_run_twice_counts_once(runs_dir, compare_json):
    write_run(runs_dir, "ed-rope-s1-2", [(100, 50.0)], knobs={"model.pe": "rope"}, seed=1)  # `fit` run again
    result = compare_json(runs_dir)
    rope = next(row for row in result["rows"] if row["model.pe"] == "rope")
    assert rope["n"] == 3 and "ed-rope-s1-2" not in rope["runs"]
    assert result["excluded"] == [{"run": "ed-rope-s1-2", "reason": "rerun of the seed of ed-rope-s1"}]


def test_default_baseline_prefers_most_common_then_paper_values(tmp_path, compare_json):
    runs = tmp_path / "runs"  # a 2x2 grid: every value equally common, so the paper's (sinusoidal, post) wins
    for pe in ("rope", "sinusoidal"):
        for position in ("pre", "post"):
            write_run(runs, f"{pe}-{position}", [(100, 30.0)], knobs={"model.pe": pe, "model.norm_position": position})
    rows = compare_json(runs)["rows"]
    order = [(row["model.norm_position"], row["model.pe"]) for row in rows]
    # Table 3 layout: baseline, then one knob changed (grouped by knob), then two
    assert order == [("post", "sinusoidal"), ("pre", "sinusoidal"), ("post", "rope"), ("pre", "rope")]


def test_baseline_flag_picks_the_row_and_accepts_short_keys(runs_dir, compare_json):
    rows = compare_json(runs_dir, "--baseline", "pe=rope")["rows"]
    assert [(row["model.pe"], row["baseline"]) for row in rows] == [("rope", True), ("sinusoidal", False)]
    assert rows[1]["delta"] == pytest.approx(-compare_json(runs_dir)["rows"][1]["delta"])
    assert compare_json(runs_dir, "--baseline", "model.pe=rope")["rows"] == rows


def test_baseline_values_as_typed_on_the_command_line(tmp_path, compare_json):
    """``bias=false`` (as ``fit`` takes it) picks the ``False`` row, ``lr=1e-3`` the 0.001 one; runs recorded
    before ``model.bias`` existed are read as ``true``."""
    runs = tmp_path / "runs"
    write_run(runs, "old", [(100, 30.0)], knobs={"model.lr": 0.001})  # no model.bias: from before the knob
    write_run(runs, "nobias", [(100, 31.0)], knobs={"model.lr": 0.001, "model.bias": False})
    write_run(runs, "fast", [(100, 29.0)], knobs={"model.lr": 0.003, "model.bias": True})
    for baseline, expected in (("bias=false", (False, 0.001)), ("bias=true,lr=1e-3", (True, 0.001))):
        rows = compare_json(runs, "--baseline", baseline)["rows"]
        assert (rows[0]["model.bias"], rows[0]["model.lr"]) == expected and rows[0]["baseline"]
    assert sorted(row["n"] for row in compare_json(runs)["rows"]) == [1, 1, 1]


def test_language_model_compares_val_loss_lower_is_better(tmp_path, compare_json):
    lm = {"model.class_path": "zoo.tasks.LanguageModelTask"}
    for norm, losses in (("layernorm", [2.0, 1.5, 1.6]), ("rmsnorm", [2.1, 1.7, 1.8])):
        write_run(tmp_path / "runs", norm, list(zip((100, 200, 300), losses, strict=True)), metric="val_loss",
                  knobs={**lm, "model.norm": norm})  # fmt: skip
    result = compare_json(tmp_path / "runs")
    assert (result["metric"], result["lower_is_better"]) == ("val_loss", True)
    assert [row["val_loss_best_mean"] for row in result["rows"]] == [1.5, 1.7]
    assert [row["val_loss_final_mean"] for row in result["rows"]] == [1.6, 1.8]


def test_resumed_run_counts_each_step_once_with_its_last_value(tmp_path):
    rows = [{"step": 1, "val_loss": 3.0}, {"step": 2, "val_loss": 2.0}, {"step": 2, "val_loss": 2.5}]
    assert history_from_rows(rows) == {"val_loss": [(1, 3.0), (2, 2.5)]}
    folder = write_run(tmp_path, "resumed", [(100, 1.0)], tokens_per_sec=(100.0, 300.0))
    with open(folder / "metrics.jsonl", "a") as f:  # the resumed run logs step 2 again
        f.write(json.dumps({"step": 2, "tokens_per_sec": 500.0}) + "\n")
    from zoo.compare.records import load_run_folder

    assert load_run_folder(folder).history["tokens_per_sec"] == [(1, 100.0), (2, 500.0)]


def test_a_test_metric_is_compared_by_its_last_test_in_one_column(tmp_path, compare, compare_json):
    """A test metric has no best (the best of several tested checkpoints would be chosen on the test set): one
    column, headed as what it holds, and ``--value best`` compares the last test too."""
    for pe, scores in (("sinusoidal", [30.0, 31.0]), ("rope", [33.0, 34.5])):
        for seed, score in enumerate(scores, start=1):
            write_run(tmp_path / "runs", f"ed-{pe}-s{seed}", [(300, score - 1.0), (300, score)], metric="test_bleu",
                      knobs={"model.pe": pe}, seed=seed)  # fmt: skip
    result = compare_json(tmp_path / "runs", "--metric", "test_bleu", "--value", "best")
    assert result["value"] == "last test" and "test_bleu_best_mean" not in result["rows"][0]
    assert [row["test_bleu_final_mean"] for row in result["rows"]] == [30.5, 33.75]
    status, out, _ = compare(tmp_path / "runs", "--metric", "test_bleu", "--format", "markdown")
    header = out.splitlines()[0]
    assert status == 0 and "test_bleu last test" in header and "best" not in header and "Δ last test" in header
    assert "Δ compares each run's last test (a test metric has no best" in out


def test_a_run_evaluated_only_apart_is_left_out_saying_how_it_was_evaluated(tmp_path, compare_json):
    runs = tmp_path / "runs"
    for seed in (1, 2):
        write_run(runs, f"ed-s{seed}", [(300, 30.0 + seed)], metric="test_bleu", seed=seed)
    write_run(runs, "ed-s3", [(300, 20.0)], metric="partial/test_bleu", seed=3)
    write_run(runs, "ed-s4", [(300, 35.0)], metric="beam_size=5/test_bleu", seed=4)
    result = compare_json(runs, "--metric", "test_bleu")
    assert result["rows"][0]["n"] == 2
    assert {item["run"]: item["reason"] for item in result["excluded"]} == {
        "ed-s3": "test_bleu only as partial/test_bleu",
        "ed-s4": "test_bleu only as beam_size=5/test_bleu",
    }
    assert compare_json(runs, "--metric", "beam_size=5/test_bleu")["rows"][0]["runs"] == ["ed-s4"]


def test_a_configuration_all_of_whose_runs_failed_keeps_its_knob_and_a_row(tmp_path, compare, compare_json):
    """An lr sweep whose lr=1e30 runs all failed was a table of one row, with no lr column: which lr survived
    was nowhere but in the footnote."""
    runs = tmp_path / "runs"
    for seed in (1, 2):
        write_run(runs, f"lr-lr0.001-s{seed}", [(100, 30.0 + seed)], knobs={"model.lr": 0.001}, seed=seed)
        write_run(runs, f"lr-lr1e30-s{seed}", [(100, 0.0)], knobs={"model.lr": 1e30}, seed=seed, status="failed")
    result = compare_json(runs)
    assert result["knobs"] == ["model.lr"]
    assert [(row["model.lr"], row["n"], row["left_out"]) for row in result["rows"]] == [
        (0.001, 2, []),
        (1e30, 0, ["lr-lr1e30-s1", "lr-lr1e30-s2"]),
    ]
    assert result["rows"][1]["val_bleu_best_mean"] is None and result["rows"][1]["delta"] is None
    _, out, _ = compare(runs, "--format", "markdown")
    assert "| 1e+30 | 0 (2 left out) | — | — | — | — |" in out
    assert "Left out of the statistics (--include_unfinished counts unfinished runs): lr-lr1e30-s1 (failed)" in out
    status, _, err = compare(runs, "--baseline", "lr=1e+30")  # it was "matches no configuration"
    assert status == 2 and "--baseline 'lr=1e+30' names a configuration none of whose runs is counted (" in err
    _, _, err = compare(runs, "--baseline", "lr=5")
    assert "values here: model.lr: 0.001, 1e+30" in err
