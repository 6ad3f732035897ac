"""What a benchmark measures with: the machine line, the matmul peak, clocks that wait for the device, and
the peak memory of a piece of work."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import platform
import resource
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import torch

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def synchronize(device: torch.device) -> None:
    """Wait for the queued kernels of ``device`` (CUDA runs them asynchronously; a clock must wait)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (Linux), else what ``platform`` knows."""
    with contextlib.suppress(OSError):
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def machine_line(device: torch.device, dtype: str, matmul_precision: str) -> str:
    """One line naming everything a throughput depends on: CPU, threads, device, torch, dtype."""
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    return (
        f"{cpu_model()} | {torch.get_num_threads()} threads (of {os.cpu_count()} CPUs) | device {where} | "
        f"torch {torch.__version__} | dtype {dtype} | float32 matmul precision {matmul_precision}"
    )


def matmul_peak(device: torch.device, dtype: torch.dtype, size: int, repeats: int = 5) -> float:
    """The best of ``repeats`` square ``size x size`` matmuls, in FLOP/s (2 n^3 each): the machine's practical
    matmul peak, against which model FLOPs utilisation is measured (Chowdhery et al. 2022, PaLM, appendix B)."""
    a = torch.randn(size, size, device=device).to(dtype)
    b = torch.randn(size, size, device=device).to(dtype)
    best = float("inf")
    torch.mm(a, b)
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        torch.mm(a, b)
        synchronize(device)
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def _resident_bytes() -> int:
    """This process's resident memory now (Linux ``/proc/self/statm``); else its peak so far."""
    try:
        with open("/proc/self/statm", encoding="utf-8") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _release_free_memory() -> None:
    """Hand memory freed by earlier work back to the system (glibc's ``malloc_trim``), so that the resident
    size rises again with the next piece of work instead of reusing pages it already holds."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


@dataclass
class PeakMemory:
    """Bytes above the level before the measured work, at its highest (set when the ``with`` block ends)."""

    bytes: int = 0

    @property
    def mib(self) -> float:
        return self.bytes / 2**20


@contextlib.contextmanager
def peak_memory(device: torch.device, interval_s: float = 0.002) -> Iterator[PeakMemory]:
    """Measure the peak memory of the work inside the block, above what was in use before it.

    CUDA: the caching allocator's ``max_memory_allocated``. CPU: the process's resident memory, sampled every
    ``interval_s`` by a thread, after freed memory has been handed back to the system (an estimate to a few
    MiB: the allocator may keep pages of tensors freed inside the block).
    """
    result = PeakMemory()
    if device.type == "cuda":
        synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        yield result
        synchronize(device)
        result.bytes = torch.cuda.max_memory_allocated(device) - before
        return
    _release_free_memory()
    before, highest, done = _resident_bytes(), [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            highest[0] = max(highest[0], _resident_bytes())
            time.sleep(interval_s)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield result
    finally:
        done.set()
        sampler.join()
        result.bytes = max(0, max(highest[0], _resident_bytes()) - before)
