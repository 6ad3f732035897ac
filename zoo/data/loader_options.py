"""How a split's batches reach the model: DataLoader worker processes and pinned memory, chosen for the device a
run trains on.

On a GPU, batches are built by worker processes ahead of the step and collated into pinned (page-locked) host
memory, so that Lightning's copy to the device (``non_blocking=True`` for CUDA tensors) does not make the host wait
and the host can queue the next step while the GPU runs this one. On a CPU the cores that would run the workers are
the ones training runs on, so batches are built in the training process.
"""

from __future__ import annotations

import torch
from lightning.fabric.utilities.data import suggested_max_num_workers

MAX_AUTO_WORKERS = 4  # collating is padding and stacking: a few workers keep ahead of any step; more only start slower


def auto_workers(trainer) -> int:
    """``data.num_workers`` when the config leaves it ``null``: 0 on a CPU; on a GPU the smallest of
    :data:`MAX_AUTO_WORKERS`, Lightning's suggestion for the devices on this machine (its cores shared among
    the local processes, one kept for each) and this process's torch threads (a ``zoo sweep --parallel`` trial's
    share of the cores)."""
    if not _on_gpu(trainer):
        return 0
    return min(MAX_AUTO_WORKERS, suggested_max_num_workers(trainer.num_devices), torch.get_num_threads())


def loader_options(num_workers: int | None, trainer) -> dict:
    """The ``DataLoader`` arguments for loading batches: ``num_workers`` (``None``: :func:`auto_workers`),
    ``pin_memory`` on a CUDA device, and ``persistent_workers`` (workers kept from one validation to the next),
    except where the loaders are rebuilt each epoch (``trainer.reload_dataloaders_every_n_epochs``), where
    persistent workers with pinned memory are unstable (pytorch/pytorch#91252, as Lightning warns)."""
    workers = auto_workers(trainer) if num_workers is None else num_workers
    reloaded = trainer is not None and trainer.reload_dataloaders_every_n_epochs > 0
    return {"num_workers": workers, "pin_memory": _on_gpu(trainer), "persistent_workers": workers > 0 and not reloaded}


def _on_gpu(trainer) -> bool:
    return trainer is not None and trainer.strategy.root_device.type == "cuda"
