"""Trials on GPUs: one each while there are enough, evenly shared when there are more, with a machine's GPU
count faked (``torch.cuda.device_count``), and a ``trainer.devices`` that one GPU cannot run refused; trials on
the CPU that together run more threads than there are cores (a faked core count) are said before they start."""

from types import SimpleNamespace

import pytest
import torch

from tests.sweep.test_sweep_errors import write_sweep
from zoo.sweep import main
from zoo.sweep.execution import crowded_cores
from zoo.sweep.placement import Placement, visible_gpus
from zoo.sweep.runner import Runner


@pytest.fixture
def gpus(monkeypatch):
    """Fake ``count`` GPUs on this machine."""

    def fake(count: int) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)

    return fake


def test_each_trial_has_a_gpu_of_its_own_while_there_are_enough():
    placement = Placement(["0", "1", "2", "3"], parallel=2)
    assert [placement.take(), placement.take()] == ["cuda:0", "cuda:1"]
    placement.give_back("cuda:0")
    assert placement.take() == "cuda:0"  # the one that ended, not a third
    assert placement.load == {"0": 1, "1": 1, "2": 0, "3": 0}


def test_more_trials_than_gpus_share_them_at_most_ceil_n_over_g_each():
    placement = Placement(["0", "1"], parallel=5)
    taken = [placement.take() for _ in range(5)]
    assert taken == ["cuda:0", "cuda:1", "cuda:0", "cuda:1", "cuda:0"]
    assert placement.per_gpu == 3 and max(placement.load.values()) == 3
    assert placement.describe() == "on 2 GPUs (0, 1), up to 3 trials each"
    placement.give_back("cuda:1")
    assert placement.take() == "cuda:1"


def test_without_gpus_every_trial_is_on_the_cpu_and_its_environment_is_left_alone():
    placement = Placement([], parallel=3)
    assert [placement.take() for _ in range(3)] == ["cpu"] * 3
    assert Placement.environment("cpu") == {} and placement.describe() == "on the CPU"
    assert Placement.environment("cuda:GPU-5d2e") == {"CUDA_VISIBLE_DEVICES": "GPU-5d2e"}


def test_the_visible_gpus_are_those_the_sweep_itself_may_use(gpus, monkeypatch):
    gpus(0)
    assert visible_gpus() == []
    gpus(2)
    assert visible_gpus() == ["0", "1"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")  # torch then counts 2: GPUs 3 and 5 of the machine
    assert visible_gpus() == ["3", "5"]


def dry_run(tmp_path, *extra: str) -> int:
    return main([write_sweep(tmp_path), "--parallel", "3", "--runs_dir", str(tmp_path / "runs"), "--dry-run", *extra])


def test_dry_run_says_where_trials_run_and_one_device_or_auto_is_one_gpu_each(gpus, tmp_path, capsys):
    gpus(2)
    assert dry_run(tmp_path, "--", "--trainer.devices=auto") == 0, capsys.readouterr().err
    assert "trials run on 2 GPUs (0, 1), up to 2 trials each, 3 at once" in capsys.readouterr().out
    assert dry_run(tmp_path, "--", "--trainer.devices=1") == 0, capsys.readouterr().err
    assert dry_run(tmp_path, "--", "--trainer.accelerator=cpu", "--trainer.devices=2") == 0
    assert "trials run on the CPU, 3 at once" in capsys.readouterr().out
    gpus(0)  # on the CPU, a trial of 2 DDP processes is its own affair
    assert dry_run(tmp_path, "--", "--trainer.devices=2") == 0, capsys.readouterr().err


@pytest.mark.parametrize("devices", ["2", "[0,1]"])
def test_a_trial_of_several_devices_is_refused_where_each_trial_gets_one_gpu(gpus, tmp_path, capsys, devices):
    gpus(8)
    runs = tmp_path / "runs"
    assert main([write_sweep(tmp_path), "--runs_dir", str(runs), "--", f"--trainer.devices={devices}"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("zoo sweep: error: trainer.devices=") and error.count("\n") == 1, error
    assert "is not valid in a sweep on GPUs: each trial runs on one GPU of its own (CUDA_VISIBLE_DEVICES)" in error
    assert not runs.exists()


def test_a_sweep_on_the_cpu_because_cuda_visible_devices_hides_the_gpus_says_why(gpus, tmp_path, capsys, monkeypatch):
    gpus(0)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert dry_run(tmp_path) == 0, capsys.readouterr().err
    assert (
        "trials run on the CPU (CUDA_VISIBLE_DEVICES='' is set and leaves torch no GPU; unset it, or name a GPU, to "
        "use one), 3 at once"
    ) in capsys.readouterr().out
    assert dry_run(tmp_path, "--", "--trainer.accelerator=cpu") == 0  # asked for: no reason to give
    assert "trials run on the CPU, 3 at once" in capsys.readouterr().out
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")  # a machine without GPUs
    assert dry_run(tmp_path) == 0
    assert "trials run on the CPU, 3 at once" in capsys.readouterr().out


@pytest.fixture
def two_cores_and_two_threads(monkeypatch):
    """A machine of two cores (``os.sched_getaffinity``) whose shell exported ``OMP_NUM_THREADS=2``."""
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")


CROWDED = (
    "2 trials at once x 2 threads each (OMP_NUM_THREADS) = 4 threads on 2 cores: they take turns on the cores and "
    "each trial runs several times slower; --threads 1 fits"
)


def test_more_threads_than_cores_is_said_in_the_dry_run_with_the_threads_that_fit(
    gpus, two_cores_and_two_threads, tmp_path, capsys
):
    """``OMP_NUM_THREADS=2`` exported on 2 cores: ``--parallel 2`` ran each trial 16x slower, without a word."""
    gpus(0)
    runs = ["--runs_dir", str(tmp_path / "runs"), "--dry-run", "--parallel", "2"]
    assert main([write_sweep(tmp_path), *runs]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "trials run on the CPU, 2 at once, 2 threads each (OMP_NUM_THREADS)\n" in out
    assert f"\n{CROWDED}\n" in out
    assert main([write_sweep(tmp_path), *runs, "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 at once, 1 thread each (--threads)" in out and "fits" not in out
    assert main([write_sweep(tmp_path), *runs[:-1], "3", "--threads", "1"]) == 0  # even one thread is too many
    assert "3 trials at once x 1 thread each (--threads) = 3 threads on 2 cores" in capsys.readouterr().out
    assert "slower; --parallel 2 --threads 1 fits" in crowded_cores(Placement([], 3), 3, 1, "--threads")
    assert crowded_cores(Placement(["0", "1"], 2), 2, 2, "OMP_NUM_THREADS") is None  # trials on GPUs


def test_more_threads_than_cores_is_said_before_the_first_trial_starts(
    gpus, two_cores_and_two_threads, tmp_path, capsys, monkeypatch
):
    gpus(0)
    said = []

    def run(runner, source):  # the moment the first trial would start: what has the sweep said?
        said.append(capsys.readouterr().out)

    monkeypatch.setattr(Runner, "run", run)
    main([write_sweep(tmp_path), "--runs_dir", str(tmp_path / "runs"), "--parallel", "2"])
    (before,) = said
    assert "2 at once on the CPU, 2 threads each (OMP_NUM_THREADS)" in before and f"\n{CROWDED}\n" in before


def test_an_exported_w_and_b_name_is_not_every_trials_and_the_sweep_says_so(gpus, tmp_path, capsys, monkeypatch):
    """``WANDB_NAME`` exported for one run would have named every trial alike in W&B, without a word."""
    gpus(0)
    monkeypatch.setenv("WANDB_NAME", "my-run")
    assert dry_run(tmp_path) == 0, capsys.readouterr().err
    assert (
        "\nWANDB_NAME='my-run' is not passed to the trials (every trial would have that name in W&B): each is named "
        "after its run folder; unset it, or name single runs with fit --run_name\n"
    ) in capsys.readouterr().out
    runner = SimpleNamespace(state=SimpleNamespace(data={"name": "bad"}), threads=1)
    environment = Runner.environment(runner, SimpleNamespace(job_type="model.pe"), "cpu")
    assert "WANDB_NAME" not in environment and environment["WANDB_RUN_GROUP"] == "bad"
    monkeypatch.delenv("WANDB_NAME")
    assert dry_run(tmp_path) == 0 and "WANDB_NAME" not in capsys.readouterr().out
