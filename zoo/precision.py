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


# trainer.precision values that compute in a 16-bit float, by prefix, and the CPU instructions that make it pay
HALF_PRECISIONS = {"bf16": (torch.bfloat16, "AVX-512 BF16 or AMX"), "16": (torch.float16, "AVX-512 FP16 or AMX-FP16")}


def slow_cpu_precision(precision: str, device: torch.device) -> str | None:
    """A one-line warning when ``precision`` (``trainer.precision``: ``bf16-mixed``, ``bf16-true``, ``16-mixed``,
    ``16-true``) computes in a 16-bit float on a CPU whose matrix products in it are slower than in float32, so
    that it would slow training down instead of speeding it up; ``None`` otherwise. Measured on an Intel Xeon
    with plain AVX-512: bfloat16 61 and float16 2 GFLOP/s against 298 in float32, and Tiny Shakespeare trained at
    7.2k (bf16-mixed) and 6.7k (16-mixed) tokens/s against 23.3k. Measures both (tens of milliseconds) only for
    those precisions on a CPU."""
    prefix = str(precision).split("-")[0]
    if device.type != "cpu" or prefix not in HALF_PRECISIONS:
        return None
    dtype, instructions = HALF_PRECISIONS[prefix]
    half, fp32 = matmul_gflops(dtype), matmul_gflops(torch.float32)
    if half >= fp32:
        return None
    name = str(dtype).removeprefix("torch.")
    return (
        f"trainer.precision={precision} on this CPU: its {name} matrix products run at {half:.0f} GFLOP/s "
        f"against {fp32:.0f} GFLOP/s in float32 (no {name} matrix instructions such as {instructions}), so this "
        f"run will be slower than in float32; use 32-true here, or a GPU"
    )
