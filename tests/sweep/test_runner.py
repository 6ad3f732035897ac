"""The runner on stand-in trials (a few lines of Python instead of a training): parallelism, threads, grouping
variables, failures, resume arguments and Ctrl-C, in seconds."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from rich.console import Console

from tests.conftest import REPO
from tests.runs.test_folder_lock import HOLDER
from zoo.sweep.runner import Runner
from zoo.sweep.signals import Terminated
from zoo.sweep.spec import Trial
from zoo.sweep.state import SweepState

# A stand-in for `zoo fit`: writes what it saw into its run folder, finishes (or fails, or waits) as told.
TRIAL = """
import json, os, sys, time
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
run_dir = os.path.join(args["runs_dir"], args["run_name"])
os.makedirs(run_dir, exist_ok=True)
names = ("OMP_NUM_THREADS", "WANDB_RUN_GROUP", "WANDB_JOB_TYPE", "WANDB_RUN_ID", "CUDA_VISIBLE_DEVICES")
seen = {k: os.environ.get(k) for k in names}
seen["ckpt_path"], seen["pid"] = args.get("ckpt_path"), os.getpid()
json.dump(seen, open(os.path.join(run_dir, "seen.json"), "w"))
if args["action"] == "fail":
    sys.exit("ValueError: this trial fails")
if args["action"] == "die":  # as under SIGKILL: its record says running, a checkpoint was saved
    os.makedirs(os.path.join(run_dir, "checkpoints"))
    open(os.path.join(run_dir, "checkpoints", "last.ckpt"), "w").close()
    open(os.path.join(run_dir, "checkpoints", "best-step3.ckpt"), "w").close()
    json.dump({"status": "running", "best": {}}, open(os.path.join(run_dir, "summary.json"), "w"))
    os.kill(os.getpid(), 9)
if args["action"] == "wait":
    time.sleep(60)
if args["action"] == "hold":  # until a later trial releases it, so that the test knows which GPU is busy
    while not os.path.exists(os.path.join(args["runs_dir"], "released")):
        time.sleep(0.05)
if args["action"] == "release":
    open(os.path.join(args["runs_dir"], "released"), "w").close()
if args["action"] == "refused":  # `zoo fit` refusing its configuration in one line: it writes nothing
    sys.exit(2)
if args["action"] == "terminated":  # its own fit stopped by SIGTERM (not the sweep): saved, exit 143
    json.dump({"status": "interrupted"}, open(os.path.join(run_dir, "summary.json"), "w"))
    sys.exit(143)
if args["action"] == "wait_like_a_background_job":  # SIGINT ignored, as after `&` or nohup; SIGTERM handled
    import signal
    def stop(signum, frame):
        json.dump({"status": "interrupted"}, open(os.path.join(run_dir, "summary.json"), "w"))
        sys.exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop)
    time.sleep(60)
summary = {"status": "finished", "best": {"val_loss": {"value": float(args["loss"]), "step": 6}}}
json.dump(summary, open(os.path.join(run_dir, "summary.json"), "w"))
"""


def make_runner(tmp_path, parallel=2, gpus=()) -> Runner:
    state = SweepState(tmp_path / "runs", "fake")
    state.describe(name="fake")

    def command_for(params: dict) -> list[str]:
        return [sys.executable, "-c", TRIAL, *(f"--{key}={value}" for key, value in params.items())]

    console = Console(file=open(tmp_path / "console.txt", "w"), highlight=False, soft_wrap=True)
    return Runner(state, tmp_path / "runs", command_for, "val_loss", parallel, 3, console, gpus)


def source(trials):
    queue = list(trials)
    return lambda: (queue.pop(0), "[?]") if queue else None


def seen(tmp_path, name) -> dict:
    return json.loads((tmp_path / "runs" / name / "seen.json").read_text())


def test_failures_are_recorded_and_the_others_finish(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_RUN_ID", "stale")  # one left over in the shell must not make all trials one run
    runner = make_runner(tmp_path)
    trials = [
        Trial("fake-a", {"action": "finish", "loss": 1.5}, "x=a"),
        Trial("fake-b", {"action": "fail", "loss": 0}, "x=b"),
        Trial("fake-c", {"action": "finish", "loss": 2.5}, "x=c"),
    ]
    runner.run(source(trials))
    trials_state = runner.state.trials
    assert {name: entry["status"] for name, entry in trials_state.items()} == {
        "fake-a": "finished",
        "fake-b": "failed",
        "fake-c": "finished",
    }
    assert trials_state["fake-b"]["exit_code"] == 1
    assert "ValueError: this trial fails" in open(trials_state["fake-b"]["log"]).read()
    assert trials_state["fake-a"]["metric"] == {"value": 1.5, "step": 6, "kind": "best"}
    assert runner.counts == {"finished": 2, "failed": 1, "killed": 0, "interrupted": 0}
    assert {key: value for key, value in seen(tmp_path, "fake-a").items() if key != "pid"} == {
        "OMP_NUM_THREADS": "3",
        "WANDB_RUN_GROUP": "fake",
        "WANDB_JOB_TYPE": "x=a",
        "WANDB_RUN_ID": None,
        "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),  # no GPUs: the sweep's own, untouched
        "ckpt_path": None,
    }
    assert trials_state["fake-a"]["device"] == "cpu"
    console = (tmp_path / "console.txt").read_text()
    assert "FAIL  fake-b" in console and "| ValueError: this trial fails" in console
    assert "done  fake-c  best val_loss 2.5 at step 6" in console
    assert "start fake-a  x=a on cpu" in console


def test_trials_get_a_gpu_each_and_share_them_evenly_when_more_run_than_there_are(tmp_path, monkeypatch):
    """Three at once on two GPUs: at most two on one; a trial that ends frees its GPU for the next. ``a`` and
    ``c`` hold GPU 0 until ``d`` releases them, so ``d`` can only start on GPU 1, once ``b`` has ended."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    runner = make_runner(tmp_path, parallel=3, gpus=["0", "1"])
    actions = {"a": "hold", "b": "finish", "c": "hold", "d": "release"}
    runner.run(source([Trial(f"fake-{k}", {"action": action, "loss": 1}, f"x={k}") for k, action in actions.items()]))
    placed = {name: entry["device"] for name, entry in runner.state.trials.items()}
    assert placed == {"fake-a": "cuda:0", "fake-b": "cuda:1", "fake-c": "cuda:0", "fake-d": "cuda:1"}
    assert {name: seen(tmp_path, name)["CUDA_VISIBLE_DEVICES"] for name in placed} == {
        "fake-a": "0",
        "fake-b": "1",
        "fake-c": "0",
        "fake-d": "1",
    }
    assert runner.counts["finished"] == 4 and runner.placement.load == {"0": 0, "1": 0}
    assert all(seen(tmp_path, name)["OMP_NUM_THREADS"] == "3" for name in placed)  # threads: as without GPUs
    console = (tmp_path / "console.txt").read_text()
    assert "start fake-d  x=d on cuda:1" in console
    log = (tmp_path / "runs" / "fake" / "logs" / "fake-d.log").read_text()
    assert log.startswith(f"$ CUDA_VISIBLE_DEVICES=1 {sys.executable} -c")


def test_a_trials_wall_time_is_that_of_all_its_attempts(tmp_path):
    """It was the last attempt's, while its run record sums them."""
    runner = make_runner(tmp_path)
    runner.state.update("fake-a", wall_time_s=100.0)  # an earlier attempt, interrupted
    runner.run(source([Trial("fake-a", {"action": "finish", "loss": 1.5}, "x=a")]))
    assert 100.0 < runner.state.trials["fake-a"]["wall_time_s"] < 160.0


def test_a_killed_trial_is_not_left_running_in_its_record(tmp_path):
    runner = make_runner(tmp_path)
    runner.run(source([Trial("fake-k", {"action": "die", "loss": 0}, "x=k")]))
    entry = runner.state.trials["fake-k"]
    assert (entry["status"], entry["exit_code"], runner.counts["killed"]) == ("killed", -9, 1)  # as its record
    summary = json.loads((tmp_path / "runs" / "fake-k" / "summary.json").read_text())
    folder = tmp_path.resolve() / "runs" / "fake-k" / "checkpoints"
    checkpoints = {"best": str(folder / "best-step3.ckpt"), "last": str(folder / "last.ckpt")}  # as a finished one's
    assert (summary["status"], summary["exit_code"], summary["checkpoints"]) == ("killed", -9, checkpoints)
    assert "KILL  fake-k" in (tmp_path / "console.txt").read_text()


def test_a_trial_with_a_checkpoint_is_resumed_and_one_without_is_set_aside(tmp_path):
    runner = make_runner(tmp_path)
    (tmp_path / "runs" / "fake-a" / "checkpoints").mkdir(parents=True)
    (tmp_path / "runs" / "fake-a" / "checkpoints" / "last.ckpt").write_text("")
    (tmp_path / "runs" / "fake-b").mkdir()
    (tmp_path / "runs" / "fake-b" / "metrics.jsonl").write_text("{}\n")
    runner.run(
        source([Trial("fake-a", {"action": "finish", "loss": 1}), Trial("fake-b", {"action": "finish", "loss": 1})])
    )
    assert seen(tmp_path, "fake-a")["ckpt_path"] == "last"
    assert seen(tmp_path, "fake-b")["ckpt_path"] is None
    (attempt,) = (tmp_path / "runs" / "fake" / "attempts").iterdir()
    assert attempt.name.startswith("fake-b-") and (attempt / "metrics.jsonl").exists()


def test_an_empty_run_folder_is_removed_not_set_aside(tmp_path):
    """An attempt stopped before it wrote anything left an empty folder in attempts/."""
    runner = make_runner(tmp_path)
    (tmp_path / "runs" / "fake-a").mkdir(parents=True)
    runner.run(source([Trial("fake-a", {"action": "finish", "loss": 1})]))
    assert seen(tmp_path, "fake-a")["ckpt_path"] is None
    assert not (tmp_path / "runs" / "fake" / "attempts").exists()


def test_ctrl_c_stops_the_running_trials_and_records_them_as_interrupted(tmp_path, ctrl_c_reaches_this_process):
    runner = make_runner(tmp_path)
    trials = [Trial(f"fake-{k}", {"action": "wait", "loss": 0}) for k in range(3)]
    started = time.monotonic()
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        runner.run(source(trials))
    timer.cancel()
    assert time.monotonic() - started < 30  # the trials would have run 60 s
    statuses = {name: entry["status"] for name, entry in runner.state.trials.items()}
    assert statuses == {"fake-0": "interrupted", "fake-1": "interrupted"}  # the third never started
    assert runner.running == []


def test_a_stop_reaches_trials_that_ignore_sigint_and_lets_them_save(tmp_path):
    runner = make_runner(tmp_path, parallel=1)
    trials = [Trial("fake-bg", {"action": "wait_like_a_background_job", "loss": 0})]
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    started = time.monotonic()
    with pytest.raises(Terminated):  # `zoo sweep` exits with 143, as `fit` does after SIGTERM
        runner.run(source(trials))
    timer.cancel()
    assert time.monotonic() - started < 30  # stopped by its own handler, not killed after the grace period
    summary = json.loads((tmp_path / "runs" / "fake-bg" / "summary.json").read_text())
    assert summary == {"status": "interrupted"}
    assert runner.state.trials["fake-bg"]["status"] == "interrupted"


RUNNER = """
import sys
from tests.sweep.test_runner import make_runner, source
from zoo.sweep.spec import Trial
from pathlib import Path
make_runner(Path(sys.argv[1])).run(source([Trial("fake-orphan", {"action": "wait", "loss": 0})]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_trial_stops_when_its_sweep_is_killed(tmp_path):
    import subprocess

    sweep = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path)], cwd=os.getcwd())
    seen_file = tmp_path / "runs" / "fake-orphan" / "seen.json"
    deadline = time.monotonic() + 60
    while not seen_file.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # the file is written whole
    trial = seen(tmp_path, "fake-orphan")["pid"]
    sweep.kill()  # kill -9: the sweep cannot stop its trials itself
    sweep.wait()
    deadline = time.monotonic() + 20
    while _alive(trial) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(trial)  # it would have waited 60 s


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_trial_is_finished_only_when_its_process_exited_0(tmp_path):
    """A trial refused in one line (exit 2) beside a finished record of another command, or stopped on its own
    by SIGTERM, did not finish: the sweep must not count it, nor take that record's metric for it."""
    runner = make_runner(tmp_path)
    folder = tmp_path / "runs" / "fake-r"
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "checkpoints" / "last.ckpt").write_text("")
    (folder / "summary.json").write_text(json.dumps({"status": "interrupted", "best": {"val_loss": {"value": 2}}}))
    trials = [Trial("fake-r", {"action": "refused", "loss": 0}), Trial("fake-t", {"action": "terminated", "loss": 0})]
    runner.run(source(trials))
    assert [runner.state.trials[t.name]["status"] for t in trials] == ["failed", "interrupted"]
    assert runner.state.trials["fake-r"]["metric"] is None  # the record is another command's
    assert (runner.counts["finished"], runner.counts["failed"], runner.counts["interrupted"]) == (0, 1, 1)


def test_a_trial_whose_folder_another_command_writes_is_not_started(tmp_path):
    """A `fit` of the trial's run name still training: the trial neither moves its folder aside nor trains."""
    runner = make_runner(tmp_path)
    folder = tmp_path / "runs" / "fake-u"
    folder.mkdir(parents=True)
    (folder / "metrics.jsonl").write_text("{}\n")  # no last.ckpt yet: a free folder like it would be set aside
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE, cwd=REPO)
    try:
        assert process.stdout.readline() == b"held\n"
        runner.run(source([Trial("fake-u", {"action": "finish", "loss": 1})]))
    finally:
        process.kill()
        process.wait()
    entry = runner.state.trials["fake-u"]
    assert entry["status"] == "failed" and entry["error"].startswith(f"its run folder {folder} is in use")
    assert entry["attempts"] == 1
    assert not (folder / "seen.json").exists() and (folder / "metrics.jsonl").exists()  # not started, not moved
    assert "FAIL  fake-u  its run folder" in (tmp_path / "console.txt").read_text()
    runner.run(source([Trial("fake-u", {"action": "finish", "loss": 1})]))  # the other command has ended
    entry = runner.state.trials["fake-u"]
    assert (entry["status"], entry["error"], entry["attempts"]) == ("finished", None, 2)
