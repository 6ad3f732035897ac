"""Worker processes and pinned memory for the device a run trains on (:mod:`zoo.data.loader_options`)."""

from types import SimpleNamespace

import pytest
import torch

from zoo.data.loader_options import MAX_AUTO_WORKERS, auto_workers, loader_options


def trainer(device: str, devices: int = 1, reload: int = 0) -> SimpleNamespace:
    strategy = SimpleNamespace(root_device=torch.device(device))
    return SimpleNamespace(strategy=strategy, num_devices=devices, reload_dataloaders_every_n_epochs=reload)


@pytest.fixture
def cores(monkeypatch):
    """This machine seen as having ``n`` cores (by Lightning, whose suggestion the choice takes) and ``threads``
    torch threads."""

    def set_cores(n: int, threads: int) -> None:
        monkeypatch.setattr("lightning.fabric.utilities.data._num_cpus_available", lambda: n)
        monkeypatch.setattr(torch, "get_num_threads", lambda: threads)

    return set_cores


def test_a_cpu_run_builds_batches_in_its_own_process_unpinned():
    assert loader_options(None, trainer("cpu")) == {"num_workers": 0, "pin_memory": False, "persistent_workers": False}
    assert loader_options(None, None)["num_workers"] == 0  # no trainer: a data module used on its own


def test_a_given_number_of_workers_is_kept_and_its_workers_persist():
    assert loader_options(3, trainer("cpu")) == {"num_workers": 3, "pin_memory": False, "persistent_workers": True}
    assert loader_options(0, trainer("cuda"))["num_workers"] == 0


@pytest.mark.parametrize(
    ("n", "devices", "threads", "expected"),
    [
        (16, 1, 16, MAX_AUTO_WORKERS),  # a GPU machine: a few workers are enough for padding and stacking
        (16, 8, 16, 1),  # 8 GPUs on 16 cores: 2 cores a process, one kept for the process itself
        (16, 1, 2, 2),  # a trial of `zoo sweep --parallel`: its share of the cores
        (2, 1, 2, 1),  # Lightning's suggestion is at least 1
    ],
)
def test_a_gpu_run_takes_a_few_workers_within_its_share_of_the_cores(cores, n, devices, threads, expected):
    cores(n, threads)
    assert auto_workers(trainer("cuda", devices)) == expected
    options = loader_options(None, trainer("cuda", devices))
    assert options == {"num_workers": expected, "pin_memory": True, "persistent_workers": True}


def test_loaders_rebuilt_each_epoch_do_not_keep_pinned_workers(cores):
    """pytorch/pytorch#91252: persistent workers with pinned memory and reloaded loaders are unstable."""
    cores(16, 16)
    assert loader_options(None, trainer("cuda", reload=1))["persistent_workers"] is False
    assert loader_options(2, trainer("cpu", reload=1))["persistent_workers"] is False
