"""``--at step=N|tokens=N|wall=SECONDS``: each run at its last evaluation at or before the point, on made-up
records and on a real run's, which logs the training tokens and wall time of each evaluation."""

import json

import pytest
from scipy import stats

from tests.compare.fake_runs import write_run

# per configuration, per seed: val_bleu at steps 100, 200, 300; rope is twice as slow per step
CURVES = {
    "sinusoidal": [(20.0, 25.0, 26.0), (21.0, 26.0, 27.5), (19.0, 24.5, 26.5)],
    "rope": [(22.0, 28.0, 30.0), (23.0, 27.5, 31.0), (22.5, 29.0, 30.5)],
}
SECONDS_PER_STEP = {"sinusoidal": 1.0, "rope": 2.0}


@pytest.fixture
def runs(tmp_path):
    """Run records whose evaluation lines carry ``train_tokens`` (1000 a step) and ``wall_time_s``."""
    runs = tmp_path / "runs"
    for pe, seeds in CURVES.items():
        for seed, values in enumerate(seeds, start=1):
            curve = list(zip((100, 200, 300), values, strict=True))
            folder = write_run(runs, f"ed-{pe}-s{seed}", curve, knobs={"model.pe": pe}, seed=seed)
            lines = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
            for line in lines:
                if "val_bleu" in line:
                    line.update(
                        train_tokens=1000.0 * line["step"], wall_time_s=SECONDS_PER_STEP[pe] * line["step"] + seed
                    )
            (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return runs


def values_at(pe, index):
    return [seed[index] for seed in CURVES[pe]]


@pytest.mark.parametrize(("at", "index"), [("step=250", 1), ("tokens=300000", 2), ("step=100", 0)])
def test_each_run_at_its_last_evaluation_before_the_point(runs, compare_json, at, index):
    result = compare_json(runs, "--at", at)
    base, rope = result["rows"]
    assert result["at"] == at and result["value"] == "final"
    assert base["val_bleu_final_mean"] == pytest.approx(sum(values_at("sinusoidal", index)) / 3)
    test = stats.ttest_ind(values_at("rope", index), values_at("sinusoidal", index), equal_var=False)
    assert rope["p_value"] == pytest.approx(test.pvalue, rel=1e-12)
    assert (rope["delta_ci_low"], rope["delta_ci_high"]) == pytest.approx(tuple(test.confidence_interval()), rel=1e-12)
    assert rope["at_steps"] == base["at_steps"] == [(100, 200, 300)[index]] * 3


def test_wall_time_judges_the_slower_arm_per_second(runs, compare_json, compare):
    result = compare_json(runs, "--at", "wall=450")  # sinusoidal at step 300 (301-303 s), rope at 200 (401-403 s)
    base, rope = result["rows"]
    assert (base["at_steps"], rope["at_steps"]) == ([300] * 3, [200] * 3)
    assert rope["delta"] == pytest.approx(sum(values_at("rope", 1)) / 3 - sum(values_at("sinusoidal", 2)) / 3)
    best = compare_json(runs, "--at", "wall=450", "--value", "best")["rows"][1]
    assert best["val_bleu_best_mean"] == pytest.approx(sum(values_at("rope", 1)) / 3)  # the best until then
    status, out, _ = compare(runs, "--at", "wall=450", "--format", "markdown")
    assert status == 0
    assert (
        "Compared at wall=450: each run at its last val_bleu evaluation at or before it (final: that evaluation's "
        "value); evaluations used: pe=sinusoidal (base): step 300, 300, 300 (301 s, 302 s, 303 s); pe=rope: step "
        "200, 200, 200 (401 s, 402 s, 403 s). 3 runs ended before the point (ed-sinusoidal-s1, ed-sinusoidal-s2, "
        "ed-sinusoidal-s3): their last evaluation is compared. Steps count the optimiser updates done when the value "
        "was measured: a train_loss at step 299 is that of the 300th batch (before its update), a val_ metric at "
        "step 300 is measured after the 300th update. Params, tokens/s and wall time are the whole run's, not at the "
        "point." in out
    )


def test_a_point_past_the_end_of_every_run_is_refused(runs, compare):
    status, out, err = compare(runs, "--at", "step=100000")
    assert (status, out) == (2, "")
    assert err == (
        "zoo compare: error: --at step=100000 is past the end of every run (the longest ends at step 300); choose a "
        "point at or before it, or leave out --at to compare the runs' final values\n"
    )
    status, _, err = compare(runs, "--at", "step=300")  # the end itself is reached
    assert status == 0 and "ended before the point" not in err


def test_a_training_metric_is_compared_at_its_logs_up_to_a_runs_last_step(tmp_path, compare):
    runs = tmp_path / "runs"
    for seed in (1, 2):  # fit's convention: train_loss logged at 49, 99; val_bleu evaluated at 100
        folder = write_run(runs, f"ed-s{seed}", [(100, 20.0 + seed)], seed=seed)
        lines = [{"step": 49, "train_loss": 3.0 + seed}, {"step": 99, "train_loss": 2.0 + seed}]
        with (folder / "metrics.jsonl").open("a") as file:
            file.write("".join(json.dumps(line) + "\n" for line in lines))
    status, out, err = compare(runs, "--at", "step=100", "--metric", "train_loss", "--format", "markdown")
    assert status == 0, err
    assert (
        "Compared at step=100: each run at its last train_loss log at or before it (final: that log's value); logs "
        "used: all runs (base): step 99, 99." in out
    )
    assert "ended before the point" not in out


def test_a_point_before_a_runs_first_evaluation_is_refused_in_one_line(runs, compare):
    status, out, err = compare(runs, "--at", "wall=150")  # rope's first evaluation is at 201 s
    assert (status, out) == (2, "")
    assert err == (
        "zoo compare: error: --at wall=150: run ed-rope-s1 has no val_bleu evaluation at or before it (its first "
        "is at wall 201 (step 100)); choose a later point\n"
    )

    status, out, err = compare(runs, "--at", "step=50")
    assert err == (
        "zoo compare: error: --at step=50: run ed-rope-s1 has no val_bleu evaluation at or before it (its first "
        "is at step 100); choose a later point\n"
    )


def test_runs_that_record_no_tokens_are_refused(tmp_path, compare):
    runs = tmp_path / "runs"
    for seed in (1, 2):
        write_run(runs, f"ed-s{seed}", [(100, 20.0 + seed)], seed=seed)
    status, out, err = compare(runs, "--at", "tokens=1000")
    assert (status, out) == (2, "")
    assert err == (
        "zoo compare: error: --at tokens=1000: run ed-s1 records no train_tokens at its evaluations (runs trained "
        "before zoo logged it do not); compare at a step instead (--at step=N)\n"
    )


@pytest.mark.parametrize("at", ["epoch=3", "step=0", "step=2.5", "tokens=many", "wall"])
def test_a_bad_point_is_one_line(runs, compare, at):
    status, out, err = compare(runs, "--at", at)
    assert (status, out) == (2, "")
    assert err == f"zoo compare: error: --at {at!r} is not valid; give step=N, tokens=N or wall=SECONDS, with N > 0\n"


def test_a_real_run_records_its_tokens_and_wall_time_at_each_evaluation(data_dir, cli_env, compare):
    from tests.cli.helpers import read_run, shakespeare_args
    from zoo.cli.main import main

    main(shakespeare_args(data_dir))  # 6 steps, validated at 3 and 6
    (folder,) = (cli_env / "runs").iterdir()
    record = read_run(folder)
    per_step = record["config"]["data.batch_size"] * record["config"]["data.block_size"]  # blocks: no padding
    evaluations = [line for line in record["metrics"] if "val_loss" in line]
    assert [(line["step"], line["train_tokens"]) for line in evaluations] == [(3, 3 * per_step), (6, 6 * per_step)]
    clock = [line["wall_time_s"] for line in record["metrics"]]
    assert clock == sorted(clock) and 0 < clock[-1] <= record["summary"]["wall_time_s"]
    assert "wall_time_s" not in record["summary"]["final"]  # a field of the line, not a metric
    status, out, err = compare(cli_env / "runs", "--at", f"tokens={5 * per_step}", "--format", "json")
    assert status == 0, err
    (row,) = json.loads(out)["rows"]
    assert row["at_steps"] == [3] and row["val_loss_final_mean"] == evaluations[0]["val_loss"]


@pytest.mark.slow
def test_a_resumed_run_counts_its_tokens_on_from_its_checkpoint(data_dir, cli_env):
    from tests.cli.helpers import read_run, shakespeare_args
    from zoo.cli.main import main

    main(shakespeare_args(data_dir))
    main([*shakespeare_args(data_dir), "--trainer.max_steps=9", "--ckpt_path=last"])  # the count goes on from 6
    (folder,) = (cli_env / "runs").iterdir()
    record = read_run(folder)
    per_step = record["config"]["data.batch_size"] * record["config"]["data.block_size"]
    evaluations = [(line["step"], line["train_tokens"]) for line in record["metrics"] if "val_loss" in line]
    assert evaluations == [(3, 3 * per_step), (6, 6 * per_step), (9, 9 * per_step)]
