"""The local run record's summary: ``final`` is a metric's value at the run's highest step, and ``best`` is
chosen over ``fit``'s validations, whatever a later ``validate`` of another checkpoint measures."""

import json

from zoo.runs.partial_evaluations import FULL_PREFIX, Apart, data_differences
from zoo.runs.record import RunRecord


def summary(run_dir) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_validating_an_earlier_checkpoint_leaves_final_and_best_alone(tmp_path):
    fit = RunRecord(tmp_path)
    for step, loss in ((250, 2.0), (500, 1.5), (750, 1.7)):
        fit.log_metrics({"val_loss": loss, "train_loss": loss + 0.1}, step)
    validate = RunRecord(tmp_path, fit=False)
    validate.log_metrics({"val_loss": 1.4}, 500)  # best-step500.ckpt, measured again (say, with another decoder)
    record = summary(tmp_path)
    assert record["final"]["val_loss"] == 1.7 and record["final_step"]["val_loss"] == 750
    assert record["best"]["val_loss"] == {"value": 1.5, "step": 500}
    validate.log_metrics({"val_loss": 1.69}, 750)  # the last checkpoint: the run's final value, measured again
    assert summary(tmp_path)["final"]["val_loss"] == 1.69 and summary(tmp_path)["best"]["val_loss"]["value"] == 1.5
    validate.log_metrics({"test_loss": 1.8}, 500)  # a test's value is the last test, whichever checkpoint
    validate.log_metrics({"test_loss": 1.9}, 250)
    assert summary(tmp_path)["final"]["test_loss"] == 1.9 and "test_loss" not in summary(tmp_path)["best"]


def test_a_resumed_run_logs_on_from_its_checkpoint(tmp_path):
    fit = RunRecord(tmp_path)
    fit.log_metrics({"val_loss": 2.0}, 250)
    fit.log_metrics({"val_loss": 1.8}, 500)
    fit.rewind(250)  # killed after step 500's validation, resumed from step 250's checkpoint
    assert summary(tmp_path)["final"]["val_loss"] == 2.0 and summary(tmp_path)["final_step"] == {"val_loss": 250}
    RunRecord(tmp_path).log_metrics({"val_loss": 1.9}, 500)
    assert summary(tmp_path)["final"]["val_loss"] == 1.9 and summary(tmp_path)["best"]["val_loss"]["value"] == 1.9


def test_an_evaluation_apart_is_listed_with_its_reason(tmp_path):
    RunRecord(tmp_path).log_metrics({"val_loss": 2.0}, 6)
    validate = RunRecord(tmp_path, fit=False)
    validate.apart = Apart("full", FULL_PREFIX, "the whole split")
    validate.log_metrics({"val_loss": 2.5, "epoch": 0}, 6)
    record = summary(tmp_path)
    assert record["final"] == {"val_loss": 2.0, "full/val_loss": 2.5}
    assert record["full_evaluations"] == {"full/val_loss": "the whole split"} and "partial_evaluations" not in record


def test_a_damaged_summary_is_rebuilt_from_the_metrics_and_never_written_in_place(tmp_path, monkeypatch):
    """A kill -9 mid-write left an empty summary.json (written in place before 2026-12-01): a resume read it
    with a traceback. It is now written to a temporary file and renamed, and a damaged one is rebuilt."""
    fit = RunRecord(tmp_path)
    for step, loss in ((250, 2.0), (500, 1.5)):
        fit.log_metrics({"val_loss": loss, "train_loss": loss + 0.1}, step)
    expected = summary(tmp_path)
    with open(tmp_path / "metrics.jsonl", "a") as file:
        file.write('{"step": 600, "train_lo')  # the last line of the killed process, cut short
    (tmp_path / "summary.json").write_text("")
    rebuilt = RunRecord(tmp_path).summary
    assert (rebuilt["final"], rebuilt["best"]) == (expected["final"], expected["best"])
    written = []
    monkeypatch.setattr("os.replace", lambda source, target: written.append(str(target)))
    fit.log_metrics({"train_loss": 1.0}, 700)
    assert written == [str(tmp_path / "summary.json")]  # renamed into place, not written in it


def test_evaluations_on_two_folders_of_one_name_are_recorded_apart(tmp_path, monkeypatch):
    """They were both ``path=ev/...``: the second test replaced the first's metric, and its predictions file."""
    for folder in ("a/ev", "b/ev", "run_data"):
        (tmp_path / folder).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    run = {"data.path": str(tmp_path / "run_data"), "data.block_size": 64}
    first, second, again = (data_differences(run, {**run, "data.path": path}) for path in ("a/ev", "b/ev", "./a/ev/"))
    assert first[0].startswith("path=ev@") and second[0].startswith("path=ev@") and first != second
    assert again == first  # one folder, however written
    assert data_differences(run, {**run, "data.path": "run_data/"}) == []
