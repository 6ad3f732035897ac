"""What a run ran on and how much it trained on per optimiser step: its world size, devices, precision and
effective batch, recorded beside its metrics so that a number never depends silently on the machine; and the
line a ``fit`` says when ``trainer.devices`` left to Lightning would run it on more devices than one.

The effective batch is what one optimiser step averages its gradient over: a device's mean training batch,
in the unit the task's data module batches by (target tokens for translation and language modelling,
sentences for classification), times the world size (``trainer.devices x trainer.num_nodes``) times
``trainer.accumulate_grad_batches``.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from lightning.pytorch import Trainer

    from zoo.data import ZooDataModule

# trainer.devices values with which Lightning picks the count (every device of the accelerator it picks)
UNPINNED = ("auto", "-1", "None")


def hidden_gpus() -> str | None:
    """Why torch sees no GPU where an exported ``CUDA_VISIBLE_DEVICES`` names none it can use (``""``, ``"-1"``, a
    GPU the machine lacks), or ``None``: the line that says why a ``fit`` or a sweep runs on the CPU, which it
    would do without a word. ``torch.cuda.device_count`` asks NVML and makes no CUDA context."""
    exported = os.environ.get("CUDA_VISIBLE_DEVICES")
    if exported is None or (torch.cuda.is_available() and torch.cuda.device_count() > 0):
        return None
    return f"CUDA_VISIBLE_DEVICES={exported!r} is set and leaves torch no GPU; unset it, or name a GPU, to use one"


def cpu_fit_reason(trainer: Trainer, accelerator_given: object) -> str | None:
    """The line a ``fit`` says before training when it runs on the CPU because ``CUDA_VISIBLE_DEVICES`` hides
    the GPUs (:func:`hidden_gpus`) and the configuration did not ask for the CPU (``trainer.accelerator``), or
    ``None``."""
    if trainer.strategy.root_device.type != "cpu" or str(accelerator_given) == "cpu":
        return None
    reason = hidden_gpus()
    return None if reason is None else f"this fit runs on the CPU: {reason}"


def cpu_cores() -> int:
    """The cores this process may run on: ``os.sched_getaffinity`` where the system has it (a container's or
    ``taskset``'s share, as Lightning counts them), else ``os.cpu_count()``."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cpu_threads(processes: int) -> tuple[int, str]:
    """The torch threads of each of ``processes`` CPU processes of a run on this machine, and where the number
    comes from: an exported ``OMP_NUM_THREADS``; else, for several processes, Lightning's share of the cores
    (``lightning.fabric.utilities.distributed._set_num_threads_if_needed``: ``cores // processes``, at least 1);
    else torch's own count."""
    exported = os.environ.get("OMP_NUM_THREADS", "").strip()
    if exported.isdigit() and int(exported) > 0:
        return int(exported), f"OMP_NUM_THREADS={exported}"
    if processes > 1:
        return max(1, cpu_cores() // processes), "Lightning's share: cores // processes, at least 1"
    return torch.get_num_threads(), "torch's default"


def crowded_cpu(trainer: Trainer) -> str | None:
    """The line a command says before it runs when it starts more processes on this machine's CPU than the
    machine has cores (``--trainer.devices=3 --trainer.accelerator=cpu`` on 2 cores: valid, to test DDP, but
    slower than one process), or ``None``."""
    processes, cores = trainer.num_devices, cpu_cores()
    if trainer.strategy.root_device.type != "cpu" or processes <= cores:
        return None
    threads, source = cpu_threads(processes)
    return (
        f"trainer.devices={processes} starts {processes} CPU processes on {cores} core{'s' * (cores != 1)}, "
        f"{threads} thread{'s' * (threads != 1)} each ({source}): they take turns on the cores, so this runs "
        f"slower than one process (--trainer.devices=1), though it still tests DDP"
    )


def device_names(trainer: Trainer) -> list[str]:
    """The name of each device of this process's trainer (``torch.cuda.get_device_name`` on CUDA), or its
    accelerator's type (``"cpu"``, ``"mps"``, and ``"cuda"`` for ranks a ``ddp_fork`` strategy forks) where
    devices have no name."""
    root = trainer.strategy.root_device
    launcher = getattr(trainer.strategy, "launcher", None)
    # asking CUDA for a name starts CUDA in this process, which ranks forked from it could not use
    forked = getattr(launcher, "_start_method", None) in ("fork", "forkserver")
    if root.type != "cuda" or forked:
        return [root.type] * trainer.num_devices
    return [torch.cuda.get_device_name(index) for index in trainer.device_ids]


def effective_batch(datamodule: ZooDataModule, trainer: Trainer) -> dict:
    """The training batch of one device and of one optimiser step.

    Returns:
        ``unit`` (what a batch is counted in: ``target tokens``, ``sentences``), ``per_device`` (the mean over
        an epoch's training batches), ``world_size``, ``accumulate_grad_batches`` and ``per_step`` (their
        product).
    """
    batches = datamodule.batch_sampler("train", train=True).all_batches(random.Random(datamodule.seed))
    per_device = sum(datamodule.batch_amount("train", batch) for batch in batches) / max(1, len(batches))
    accumulate = int(trainer.accumulate_grad_batches)
    return {
        "unit": datamodule.batch_unit,
        "per_device": round(per_device, 1),
        "world_size": trainer.world_size,
        "accumulate_grad_batches": accumulate,
        "per_step": round(per_device * trainer.world_size * accumulate, 1),
    }


def run_devices(trainer: Trainer, datamodule: ZooDataModule) -> dict:
    """The fields a run records of where it ran (in ``summary.json``, and under
    :data:`zoo.runs.identity.RUN_PREFIX` in W&B's config: ``run.world_size``, ``run.effective_batch.per_step``):
    ``world_size``, ``num_nodes``, ``devices`` (``accelerator``, ``count`` per node, ``names``; on the CPU also
    ``cores``, :func:`cpu_cores`, and ``threads`` per process, :func:`cpu_threads`), ``precision``,
    ``effective_batch`` (:func:`effective_batch`) and the ``libraries`` whose versions the numbers and the speed
    depend on (:func:`library_versions`)."""
    devices = {"accelerator": trainer.strategy.root_device.type, "count": trainer.num_devices}
    devices["names"] = device_names(trainer)
    if devices["accelerator"] == "cpu":  # what a CPU run's speed depends on
        devices.update(cores=cpu_cores(), threads=cpu_threads(trainer.num_devices)[0])
    return {
        "world_size": trainer.world_size,
        "num_nodes": trainer.num_nodes,
        "devices": devices,
        "precision": str(trainer.precision),
        "effective_batch": effective_batch(datamodule, trainer),
        "libraries": library_versions(),
    }


def library_versions() -> dict:
    """``{"torch": "2.13.0+cpu", "lightning": "2.6.6"}``, and ``cuda`` where torch was built with it: the kernels a
    run's numbers and speed come from (``zoo compare`` says where the arms differ in them)."""
    import lightning

    versions = {"torch": torch.__version__, "lightning": lightning.__version__}
    return {**versions, "cuda": torch.version.cuda} if torch.version.cuda else versions


def unpinned_devices(typed: object, trainer: Trainer, batch: dict) -> str | None:
    """The line a ``fit`` says before training when its ``trainer.devices`` (``typed``: as the config has it)
    leaves the count to Lightning and Lightning picked more than one device, or ``None``: the run's effective
    batch is then that many times a one-device run's (the shipped configs' results are of one device)."""
    if str(typed).replace(" ", "") not in UNPINNED or trainer.world_size == 1:
        return None
    return (
        f"trainer.devices={typed!r} runs this fit on {trainer.world_size} devices "
        f"({trainer.num_devices} {trainer.strategy.root_device.type} x {trainer.num_nodes} node"
        f"{'s' * (trainer.num_nodes != 1)}, strategy {type(trainer.strategy).__name__}): {batch['per_step']:g} "
        f"{batch['unit']} per optimiser step, {trainer.world_size}x a one-device run's; --trainer.devices=1 pins one"
    )


def moved_devices(recorded: dict, now: dict) -> str | None:
    """The line a resumed ``fit`` says when its world size or effective batch is not that of the run's
    earlier attempt (``recorded``: its ``summary.json``), or ``None``: its later steps average over another
    batch."""
    before = recorded.get("effective_batch")
    if not before or (before.get("world_size"), before.get("per_step")) == (
        now["effective_batch"]["world_size"],
        now["effective_batch"]["per_step"],
    ):
        return None
    return (
        f"this run trained on world size {before.get('world_size')} ({before.get('per_step'):g} {before.get('unit')} "
        f"per step) and continues on {now['world_size']} ({now['effective_batch']['per_step']:g}): its later steps "
        f"average over another batch"
    )
