"""The float32 matmul precision of a run (``--matmul_precision``): how much accuracy float32 matrix products
may trade for speed, through ``torch.set_float32_matmul_precision``.

``highest`` (PyTorch's default) keeps float32 products in float32. ``high`` lets CUDA use TF32 tensor cores
(10-bit mantissa inputs, float32 accumulation). ``medium`` also allows bfloat16 inputs, which oneDNN uses on
CPUs with AVX-512 BF16 or AMX. Mixed precision (``--trainer.precision bf16-mixed``) is the other switch: it
runs the matmuls themselves in bfloat16 under autocast, whatever this setting.
"""

from __future__ import annotations

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
