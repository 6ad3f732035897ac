"""Bad input ends in exit status 2 and one line on stderr that names the value and what is valid."""

import json

from tests.compare.fake_runs import write_run


def one_error_line(compare, *args) -> str:
    status, out, err = compare(*args)
    assert (status, out) == (2, "") and err.count("\n") == 1 and err.startswith("zoo compare: error: ")
    return err.strip().removeprefix("zoo compare: error: ")


def test_a_path_that_is_no_run(runs_dir, compare):
    assert one_error_line(compare, "nope", "--runs_dir", runs_dir) == (
        "'nope' is not a run folder (no summary.json or config.json), a glob of run folders, or a sweep name in "
        f"{runs_dir}/ (sweeps there: pe-sweep)"
    )
    pattern = str(runs_dir / "zz*")
    assert (
        one_error_line(compare, pattern)
        == f"{pattern!r} matches no run folder (a folder with summary.json or config.json)"
    )


def test_a_sweep_whose_trials_all_failed_says_so(runs_dir, compare):
    trials = {"bad-sweep-a-s1": {"status": "failed"}, "bad-sweep-b-s1": {"status": "failed"}}
    state = {"name": "bad-sweep", "trials": trials}
    (runs_dir / "bad-sweep").mkdir()
    (runs_dir / "bad-sweep" / "sweep.json").write_text(json.dumps(state))
    assert one_error_line(compare, "bad-sweep", "--runs_dir", runs_dir) == (
        f"sweep 'bad-sweep' has no run with a record yet (2 failed); the trials' output is in "
        f"{runs_dir / 'bad-sweep' / 'logs'}/"
    )


def test_an_unknown_metric(runs_dir, compare):
    assert one_error_line(compare, runs_dir, "--metric", "val_blue") == (
        "--metric 'val_blue' is not logged by these runs; choose one of: train_loss, val_bleu"
    )


def test_bookkeeping_is_no_metric(runs_dir, compare):
    assert one_error_line(compare, runs_dir, "--metric", "parameters") == (
        "--metric 'parameters' is bookkeeping of the run, not a metric of its model; choose one of: train_loss, "
        "val_bleu"
    )
    assert one_error_line(compare, runs_dir, "--metric", "val_bleu,tokens_per_sec").startswith(
        "--metric 'tokens_per_sec' is bookkeeping of the run"
    )


def test_bookkeeping_is_what_fit_logs_beside_train_loss():
    from zoo.compare.metrics import BOOKKEEPING
    from zoo.tasks.base import TaskModule

    assert set(BOOKKEEPING) == set(TaskModule.training_metrics) - {"train_loss"}


def test_a_bad_baseline(runs_dir, compare):
    assert one_error_line(compare, runs_dir, "--baseline", "pe=learned") == (
        "--baseline 'pe=learned' matches no configuration; values here: model.pe: rope, sinusoidal"
    )
    assert one_error_line(compare, runs_dir, "--baseline", "norm=rmsnorm") == (
        "--baseline key 'norm' is not a knob that differs here; knobs: model.pe"
    )
    assert one_error_line(compare, runs_dir, "--baseline", "rope") == (
        "--baseline 'rope': 'rope' is not KEY=VALUE (e.g. --baseline pe=rope)"
    )
    assert one_error_line(compare, runs_dir, "--baseline", "pe=rope,model.pe=sinusoidal") == (
        "--baseline 'pe=rope,model.pe=sinusoidal' gives model.pe twice; give each knob one value"
    )  # the last value won, silently


def test_bad_arguments_and_no_runs(runs_dir, compare):
    assert "--format" in one_error_line(compare, runs_dir, "--format", "xml")
    assert one_error_line(compare) == (
        "name the runs to compare: run folders, globs, a sweep name, or --wandb ENTITY/PROJECT"
    )
    alpha = one_error_line(compare, runs_dir, "--alpha", "2")
    assert alpha == "--alpha 2 is not valid; it must be in (0, 1), e.g. 0.05"


def test_a_task_metric_never_logged(tmp_path, compare):
    write_run(tmp_path, "no-validation", [(100, 2.0)], metric="train_loss")
    assert one_error_line(compare, tmp_path) == (
        "the task metric 'val_bleu' is not logged by these runs; pass --metric, one of: train_loss"
    )


def test_runs_of_different_tasks_are_refused_before_their_metric(tmp_path, compare):
    write_run(tmp_path, "translation", [(100, 30.0)], knobs={"model.class_path": "zoo.tasks.TranslationTask"})
    write_run(
        tmp_path, "lm", [(100, 2.0)], metric="val_loss", knobs={"model.class_path": "zoo.tasks.LanguageModelTask"}
    )
    assert one_error_line(compare, tmp_path).startswith(
        "the runs are of 2 tasks (LanguageModelTask: 1 run, TranslationTask: 1 run)"
    )


def test_only_failed_runs(tmp_path, compare):
    write_run(tmp_path, "broken", [(100, 30.0)], status="failed")
    assert one_error_line(compare, tmp_path) == "no finished run with val_bleu to compare; left out: broken (failed)"


def test_runs_of_two_tasks_are_refused_even_with_a_common_metric(tmp_path, compare):
    """A translation run beside language-model runs (``compare runs/``): their perplexities measure different
    things, so no difference between them is reported."""
    runs = tmp_path / "runs"
    for name, task in (("ed", "TranslationTask"), ("do-a", "LanguageModelTask"), ("do-b", "LanguageModelTask")):
        knobs = {"model.class_path": f"zoo.tasks.{task}", "model.pe": name}
        write_run(runs, name, [(100, 2.0)], metric="val_loss", knobs=knobs)
    assert one_error_line(compare, runs, "--metric", "val_loss") == (
        "the runs are of 2 tasks (LanguageModelTask: 2 runs, TranslationTask: 1 run); compare the runs of one "
        "task, e.g. a glob of their names ('runs/do-*') or a sweep"
    )
    status, out, _ = compare(str(runs / "do-*"), "--metric", "val_loss")
    assert status == 0


def test_a_trial_that_failed_before_its_record_is_listed_as_left_out(runs_dir, compare_json):
    """A sweep trial refused before training leaves no run folder; the table of the others names it."""
    finished = {f"ed-{pe}-s{seed}": {"status": "finished"} for pe in ("sinusoidal", "rope") for seed in (1, 2, 3)}
    failed = {"status": "failed", "exit_code": 2, "log": "runs/pe-sweep/logs/ed-alibi-s1.log"}
    (runs_dir / "pe-sweep").mkdir()
    (runs_dir / "pe-sweep" / "sweep.json").write_text(json.dumps({"trials": {**finished, "ed-alibi-s1": failed}}))
    reason = "failed before its run record: exit 2, log runs/pe-sweep/logs/ed-alibi-s1.log"
    for extra in ((), ("--include_unfinished",)):
        table = compare_json("pe-sweep", "--runs_dir", runs_dir, *extra)
        assert table["excluded"] == [{"run": "ed-alibi-s1", "reason": reason}]
        assert sum(row["n"] for row in table["rows"]) == 6


def test_a_damaged_summary_is_one_line(runs_dir, compare):
    """A kill -9 while an older version wrote summary.json in place left it damaged."""
    damaged = next(runs_dir.iterdir()) / "summary.json"
    damaged.write_text("")
    status, _, err = compare(runs_dir)
    assert status == 2 and err.count("\n") == 1 and f"{damaged} is damaged (not JSON); resuming the run" in err, err


def test_a_trial_killed_before_its_summary_is_listed_as_left_out_and_another_sweeps_run_is_not_taken(
    runs_dir, compare_json
):
    """A sweep's runs are found by the group in their summary.json; a trial killed after its config.json but
    before its summary.json has none, and vanished from its sweep's table (its configuration's n fell from 3
    to 2 with no word). A run of another sweep whose name a trial shares is not this sweep's."""
    trials = {f"ed-{pe}-s{seed}": {"status": "finished"} for pe in ("sinusoidal", "rope") for seed in (1, 2, 3)}
    (runs_dir / "pe-sweep").mkdir()
    (runs_dir / "pe-sweep" / "sweep.json").write_text(json.dumps({"trials": {**trials, "ed-t5-s1": {}}}))
    (runs_dir / "ed-sinusoidal-s3" / "summary.json").unlink()
    write_run(runs_dir, "ed-t5-s1", [(100, 2.0)], knobs={"model.pe": "t5"}, group="other-sweep")
    table = compare_json("pe-sweep", "--runs_dir", runs_dir)
    assert [entry["run"] for entry in table["excluded"]] == ["ed-sinusoidal-s3"]
    assert "summary.json" in table["excluded"][0]["reason"]
    assert sorted((row["model.pe"], row["n"]) for row in table["rows"]) == [("rope", 3), ("sinusoidal", 2)]
