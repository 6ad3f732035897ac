"""Where a sweep's trials run: each on a GPU of its own while there are enough, else shared evenly.

With ``G`` GPUs and ``--parallel N``, a trial starts on the GPU that runs the fewest trials (the lowest such
index first), so that ``N <= G`` gives each trial its own GPU and ``N > G`` puts at most ``ceil(N / G)`` on
one; a trial that ends frees its place for the next. A trial sees only its GPU (``CUDA_VISIBLE_DEVICES``), so
its ``fit`` runs on one device whatever ``trainer.devices=auto`` would pick on the whole machine.
"""

from __future__ import annotations

import math
import os

from zoo.sweep.spec import SweepError

CPU = "cpu"  # the device of a trial on a machine without GPUs (or with trainer.accelerator=cpu)
# trainer.devices values that mean one device once a trial sees one GPU
ONE_DEVICE = ("auto", "-1", "1", "[0]")


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` names them to a child process: the entries
    of an exported ``CUDA_VISIBLE_DEVICES`` (indices or UUIDs), else ``0 .. count - 1``; none without CUDA.
    ``torch.cuda.device_count`` asks NVML and makes no CUDA context in this process."""
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    exported = os.environ.get("CUDA_VISIBLE_DEVICES")
    if exported is not None:
        names = [name.strip() for name in exported.split(",") if name.strip()]
        return names[:count]
    return [str(index) for index in range(count)]


class Placement:
    """The GPUs trials run on, and how many trials each runs now.

    Args:
        gpus: the GPUs (``CUDA_VISIBLE_DEVICES`` entries); none: every trial runs on the CPU.
        parallel: the most trials at once (``--parallel``).
        cpu_reason: why there are none, where the sweep's command did not choose the CPU (:func:`cpu_reason`).
    """

    def __init__(self, gpus: list[str], parallel: int, cpu_reason: str | None = None) -> None:
        self.gpus, self.cpu_reason = list(gpus), cpu_reason
        self.load = dict.fromkeys(self.gpus, 0)
        self.per_gpu = math.ceil(parallel / len(self.gpus)) if self.gpus else 0

    def take(self) -> str:
        """A place for a trial that starts: the least busy GPU (``"cuda:<name>"``), or ``"cpu"``."""
        if not self.gpus:
            return CPU
        gpu = min(self.gpus, key=lambda name: self.load[name])  # min keeps the first of equals: round-robin
        self.load[gpu] += 1
        return f"cuda:{gpu}"

    def give_back(self, device: str) -> None:
        """Free the place of a trial that ended."""
        if device != CPU:
            self.load[device.removeprefix("cuda:")] -= 1

    @staticmethod
    def environment(device: str) -> dict[str, str]:
        """What a trial on ``device`` adds to its environment: ``CUDA_VISIBLE_DEVICES`` naming its GPU."""
        return {} if device == CPU else {"CUDA_VISIBLE_DEVICES": device.removeprefix("cuda:")}

    def describe(self) -> str:
        """How trials are placed, for the sweep's first line."""
        if not self.gpus:
            return f"on the CPU ({self.cpu_reason})" if self.cpu_reason else "on the CPU"
        count = f"{len(self.gpus)} GPU{'s' * (len(self.gpus) != 1)}"
        return f"on {count} ({', '.join(self.gpus)}), up to {self.per_gpu} trial{'s' * (self.per_gpu != 1)} each"


def cpu_reason(namespace, gpus: list[str]) -> str | None:
    """Why a sweep's trials go on the CPU where its command (``namespace``) did not choose it
    (``trainer.accelerator=cpu``) and there are no ``gpus``: an exported ``CUDA_VISIBLE_DEVICES`` that hides
    them (:func:`zoo.runs.devices.hidden_gpus`); ``None`` otherwise."""
    from zoo.runs.devices import hidden_gpus  # torch: not before the sweep's arguments are checked

    if gpus or str(namespace.trainer.get("accelerator") or "auto") == "cpu":
        return None
    return hidden_gpus()


def trial_gpus(namespace) -> list[str]:
    """The GPUs a sweep places its trials on, from its parsed base command (``namespace``): none where the
    trials run on the CPU (``trainer.accelerator=cpu``), else :func:`visible_gpus`.

    Raises:
        SweepError: for a ``trainer.devices`` of more than one device where trials go on GPUs (each trial sees
            one GPU, on which such a ``fit`` would stop at once).
    """
    trainer = namespace.trainer
    if str(trainer.get("accelerator") or "auto") == "cpu":
        return []
    gpus = visible_gpus()
    devices = str(trainer.get("devices") or "auto").replace(" ", "")
    if gpus and devices not in ONE_DEVICE:
        raise SweepError(
            f"trainer.devices={trainer.get('devices')!r} is not valid in a sweep on GPUs: each trial runs on one "
            f"GPU of its own (CUDA_VISIBLE_DEVICES), so its fit sees one device; leave trainer.devices out or "
            f"set it to 1 (or run its fit alone, outside the sweep)"
        )
    return gpus
