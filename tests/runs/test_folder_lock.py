"""One command at a time in a folder (:mod:`zoo.runs.lock`): another process's lock is refused, a killed
holder leaves no stale lock, and the commands that write a run folder or run a sweep take it."""

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.cli.helpers import read_run, shakespeare_args
from tests.conftest import REPO
from tests.sweep.test_sweep_errors import write_sweep
from zoo import sweep
from zoo.cli.main import main
from zoo.runs.lock import FolderInUse, hold, release

HOLDER = (
    "import sys, time; from zoo.runs.lock import hold; hold(sys.argv[1]); print('held', flush=True); time.sleep(600)"
)


@pytest.fixture
def held_by_another_process():
    """Start a process that holds a folder's lock, as a running ``fit`` or ``zoo sweep`` does; kill it after."""
    processes = []

    def start(folder) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], cwd=REPO, stdout=subprocess.PIPE)
        assert process.stdout.readline() == b"held\n"
        processes.append(process)
        return process

    yield start
    for process in processes:
        process.kill()
        process.wait()


def test_another_process_holds_the_folder_until_it_is_killed(tmp_path, held_by_another_process):
    holder = held_by_another_process(tmp_path)
    with pytest.raises(FolderInUse):
        hold(tmp_path)
    holder.send_signal(signal.SIGKILL)  # no chance to release: the kernel does
    holder.wait()
    hold(tmp_path)
    hold(tmp_path)  # this process holds it already: still held, no error
    release(tmp_path)
    assert not os.listdir(tmp_path)  # no lock file


def files(run_dir) -> dict:
    """The run's files and their bytes; of W&B's folder, only which runs it holds (its service may still be
    appending to the finished run's debug log)."""
    record = {
        path: path.read_bytes() for path in sorted(run_dir.rglob("*")) if path.is_file() and "wandb" not in path.parts
    }
    return {**record, "wandb runs": sorted(path.name for path in (run_dir / "wandb").glob("*run-*"))}


def test_a_run_folder_in_use_is_refused_to_a_resume_and_an_evaluation(
    data_dir, cli_env, capsys, held_by_another_process
):
    args = shakespeare_args(data_dir)
    main(args)
    (run_dir,) = (cli_env / "runs").iterdir()
    before = files(run_dir)
    held_by_another_process(run_dir)  # e.g. a fit still training it
    capsys.readouterr()
    commands = {
        "start a new run without --ckpt_path": [*args, "--trainer.max_steps=9", "--ckpt_path=last"],
        "copy the checkpoint out of the run folder": [
            "validate",
            *args[1:],
            f"--ckpt_path={run_dir / 'checkpoints' / 'last.ckpt'}",
        ],
    }
    for advice, command in commands.items():
        with pytest.raises(SystemExit) as stop:
            main(command)
        assert stop.value.code == 2
        error = capsys.readouterr().err.strip().splitlines()[-1]
        assert error.startswith("zoo: error: run folder ") and f"{run_dir.name} is in use: another zoo" in error, error
        assert advice in error, error
    assert files(run_dir) == before  # nothing written: no W&B attempt, no record line
    assert read_run(run_dir)["summary"]["status"] == "finished"


def test_a_finished_command_releases_its_run_folder(data_dir, cli_env):
    """Two commands one after the other in one process (as the tests and notebooks run them)."""
    args = shakespeare_args(data_dir)
    main(args)
    main([*args, "--trainer.max_steps=8", "--ckpt_path=last"])
    (run_dir,) = (cli_env / "runs").iterdir()
    hold_in_child = subprocess.run(
        [sys.executable, "-c", "import sys; from zoo.runs.lock import hold; hold(sys.argv[1])", str(run_dir)],
        cwd=REPO,
    )
    assert hold_in_child.returncode == 0
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "finished"


def test_a_sweep_in_use_is_refused_and_its_dry_run_is_not(tmp_path, capsys, monkeypatch, held_by_another_process):
    monkeypatch.chdir(REPO)
    runs = tmp_path / "runs"
    (runs / "bad").mkdir(parents=True)  # the sweep's folder, as its first runner made it
    held_by_another_process(runs / "bad")
    file = write_sweep(tmp_path)
    assert sweep.main([file, "--runs_dir", str(runs)]) == 2
    error = capsys.readouterr().err
    assert error == (
        f"zoo sweep: error: sweep 'bad' is being run by another `python -m zoo sweep` (its folder {runs / 'bad'} is "
        f"in use); wait for it to end: its progress is in {runs / 'bad' / 'sweep.json'}\n"
    )
    assert sweep.main([file, "--runs_dir", str(runs), "--dry-run"]) == 0
    assert os.listdir(runs) == ["bad"] and not os.listdir(runs / "bad")
