"""Timing of training steps: forward, backward and an AdamW step, as many as asked after a warm-up, the median
reported with tokens per second, peak memory and model FLOPs utilisation."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch

from benchmarks.cases import Case
from benchmarks.flops import matmul_parameter_tokens, training_flops
from benchmarks.machine import median_seconds, peak_memory


@dataclass
class Measured:
    """The result of one case; ``ratio`` is its tokens per second over its reference's (``None``: no
    reference)."""

    case: Case
    seconds: float
    peak_mib: float
    flops: float
    ratio: float | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.case.tokens / self.seconds

    def mfu(self, peak_flops: float) -> float:
        """Model FLOPs utilisation: model FLOPs per second over the machine's matmul peak."""
        return self.flops / self.seconds / peak_flops


@dataclass(frozen=True)
class Settings:
    """How every case runs: on ``device``, under bf16 autocast or not, with ``steps`` timed steps after
    ``warmup``, optionally through ``torch.compile``."""

    device: torch.device
    bf16: bool
    steps: int
    warmup: int
    compile: bool = False

    def autocast(self):
        if not self.bf16:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=torch.bfloat16)


def measure(case: Case, settings: Settings) -> Measured:
    """Time ``case``'s training step (the model in train mode, AdamW, gradients set to ``None`` each step)."""
    torch.manual_seed(0)
    with peak_memory(settings.device) as peak:
        model = case.build().to(settings.device).train()
        batch = case.batch(settings.device)
        parameter_tokens = matmul_parameter_tokens(model, lambda: case.loss(model, batch))
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        run = torch.compile(model) if settings.compile else model

        def step() -> None:
            with settings.autocast():
                loss = case.loss(run, batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        seconds = median_seconds(step, settings.device, settings.steps, settings.warmup)
    flops = training_flops(parameter_tokens, case.shape.d_model, case.shape.batch, case.attention)
    return Measured(case, seconds, peak.mib, flops)


def measure_all(cases: list[Case], settings: Settings, report=print) -> list[Measured]:
    """Measure every case in order, each reported as it finishes; fill in the ratios to the references."""
    results: dict[str, Measured] = {}
    for case in cases:
        results[case.name] = measure(case, settings)
        report(f"  {case.name}: {results[case.name].seconds * 1000:.1f} ms/step")
    for result in results.values():
        reference = results.get(result.case.reference or "")
        if reference is not None:
            result.ratio = result.tokens_per_second / reference.tokens_per_second
    return list(results.values())
