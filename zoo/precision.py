"""The float32 matmul precision of a run (``--matmul_precision``): how much accuracy float32 matrix products
may trade for speed, through ``torch.set_float32_matmul_precision``.

``highest`` (PyTorch's default) keeps float32 products in float32. ``high`` lets CUDA use TF32 tensor cores
(10-bit mantissa inputs, float32 accumulation). ``medium`` also allows bfloat16 inputs, which oneDNN uses on
CPUs with AVX-512 BF16 or AMX. Mixed precision (``--trainer.precision bf16-mixed``) is the other switch: it
runs the matmuls themselves in bfloat16 under autocast, whatever this setting.
"""

from __future__ import annotations

import time
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


def matmul_gflops(dtype: torch.dtype, size: int = 512, repeats: int = 5) -> float:
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


def slow_cpu_bfloat16(precision: str, device: torch.device) -> str | None:
    """A one-line warning when ``precision`` (``trainer.precision``) computes in bfloat16 on a CPU whose
    bfloat16 matrix products are slower than its float32 ones (no AVX-512 BF16 or AMX: measured 61 against
    298 GFLOP/s on an Intel Xeon with plain AVX-512), so that bfloat16 would slow training down instead of
    speeding it up; ``None`` otherwise. Measures both (about 20 ms) only for a bfloat16 precision on a CPU."""
    if device.type != "cpu" or not str(precision).startswith("bf16"):
        return None
    bf16, fp32 = matmul_gflops(torch.bfloat16), matmul_gflops(torch.float32)
    if bf16 >= fp32:
        return None
    return (
        f"trainer.precision={precision} on this CPU: its bfloat16 matrix products run at {bf16:.0f} GFLOP/s "
        f"against {fp32:.0f} GFLOP/s in float32 (no bfloat16 matrix instructions such as AVX-512 BF16 or AMX), "
        f"so this run will be slower than in float32; use 32-true here, or a GPU"
    )
