"""The float32 matmul precision of a run (``--matmul_precision``): how much accuracy float32 matrix products
may trade for speed, through ``torch.set_float32_matmul_precision``.

``highest`` (PyTorch's default) keeps float32 products in float32. ``high`` lets CUDA use TF32 tensor cores
(10-bit mantissa inputs, float32 accumulation). ``medium`` also allows bfloat16 inputs, which oneDNN uses on
CPUs with AVX-512 BF16 or AMX. Mixed precision (``--trainer.precision bf16-mixed``) is the other switch: it
runs the matmuls themselves in bfloat16 under autocast, whatever this setting.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path
from typing import Literal

import torch

MATMUL_PRECISIONS = ("highest", "high", "medium")
MatmulPrecision = Literal[MATMUL_PRECISIONS]


def set_matmul_precision(precision: str) -> None:
    """Apply ``precision`` to every float32 matmul of this process.

    Raises:
        ValueError: naming the field, for a value outside :data:`MATMUL_PRECISIONS`.
    """
    if precision not in MATMUL_PRECISIONS:
        choices = ", ".join(repr(p) for p in MATMUL_PRECISIONS)
        raise ValueError(f"matmul_precision={precision!r} is not valid; choose one of: {choices}")
    torch.set_float32_matmul_precision(precision)


def matmul_gflops(dtype: torch.dtype, size: int = 384, repeats: int = 3) -> float:
    """Throughput of ``(size, size) @ (size, size)`` matrix products in ``dtype`` on the CPU, in GFLOP/s (the
    best of ``repeats`` after one warm-up product; ``2 * size^3`` floating-point operations each)."""
    a, b = torch.randn(size, size).to(dtype), torch.randn(size, size).to(dtype)
    a @ b
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / max(best, 1e-9) / 1e9


# trainer.precision prefixes that compute in a 16-bit float: the dtype, the x86 flags (/proc/cpuinfo) of the
# instructions that make its matrix products faster than float32's, and their names
HALF_PRECISIONS = {
    "bf16": (torch.bfloat16, ("avx512_bf16", "amx_bf16"), "AVX-512 BF16 or AMX"),
    "16": (torch.float16, ("avx512_fp16", "amx_fp16"), "AVX-512 FP16 or AMX-FP16"),
}
# measured on an Intel Xeon with plain AVX-512 (2 threads), for the message where the flags decide
WITHOUT_INSTRUCTIONS = "an Intel Xeon without them: bfloat16 61, float16 2 and float32 298 GFLOP/s"


def x86_cpu_flags() -> set[str] | None:
    """The instruction-set flags of this x86 CPU (``/proc/cpuinfo``, Linux), or ``None`` elsewhere."""
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686"):
        return None
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    line = next((line for line in text.splitlines() if line.startswith("flags")), None)
    return set(line.split(":", 1)[1].split()) if line else None


def slow_cpu_precision(precision: str, device: torch.device, typed: str | int | None = None) -> str | None:
    """A one-line warning when ``precision`` (the trainer's: ``bf16-mixed``, ``bf16-true``, ``16-true``;
    Lightning runs ``16-mixed`` as ``bf16-mixed`` on a CPU) computes in a 16-bit float on a CPU whose matrix
    products in it are slower than in float32, so that it would slow training down instead of speeding it up;
    ``None`` otherwise. ``typed``: the value as the user gave it, named in the message.

    On x86 Linux the CPU's flags decide (no bfloat16 or float16 matrix instructions: slower, as measured on an
    Intel Xeon with plain AVX-512, where Tiny Shakespeare trained at 7.2k tokens/s in bf16-mixed against 23.3k
    in float32). Elsewhere both are measured (a fraction of a second), and only a 16-bit rate below 0.8 times
    float32's counts, so that a busy machine's timing noise decides nothing.
    """
    prefix = str(precision).split("-")[0]
    if device.type != "cpu" or prefix not in HALF_PRECISIONS:
        return None
    dtype, flags_needed, instructions = HALF_PRECISIONS[prefix]
    name = str(dtype).removeprefix("torch.")
    shown = str(precision) if typed is None or str(typed) == str(precision) else f"{typed} (run as {precision})"
    flags = x86_cpu_flags()
    if flags is not None:
        if any(flag in flags for flag in flags_needed):
            return None
        why = f"has no {name} matrix instructions ({instructions}; {WITHOUT_INSTRUCTIONS})"
    else:
        half, fp32 = matmul_gflops(dtype), matmul_gflops(torch.float32)
        if half >= 0.8 * fp32:
            return None
        why = f"ran {name} matrix products at {half:.0f} GFLOP/s against {fp32:.0f} GFLOP/s in float32"
    return (
        f"trainer.precision={shown}: this CPU {why}, so this run will be slower than in float32; "
        f"use 32-true here, or a GPU"
    )
