"""Timing of training steps: forward, backward and an AdamW step, as many as asked after a warm-up, the median
reported with tokens per second, peak memory and model FLOPs utilisation."""

from __future__ import annotations

import contextlib
import statistics
import time
from dataclasses import dataclass

import torch

from benchmarks.cases import Case
from benchmarks.flops import matmul_parameter_tokens, training_flops
from benchmarks.machine import peak_memory, synchronize


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


class Runner:
    """One case ready to step: its model built and warmed up (with its peak memory measured meanwhile), AdamW,
    and the times of the steps timed so far."""

    def __init__(self, case: Case, settings: Settings) -> None:
        self.case, self.settings, self.times = case, settings, []
        torch.manual_seed(0)
        with peak_memory(settings.device) as peak:
            self.model = case.build().to(settings.device).train()
            self.batch = case.batch(settings.device)
            self.parameter_tokens = matmul_parameter_tokens(lambda: case.loss(self.model, self.batch))
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
            self.run = torch.compile(self.model) if settings.compile else self.model
            for _ in range(max(1, settings.warmup)):
                self.step()
            synchronize(settings.device)
        self.peak_mib = peak.mib

    def step(self) -> None:
        with self.settings.autocast():
            loss = self.case.loss(self.run, self.batch)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def time_step(self) -> None:
        """Time one more step."""
        start = time.perf_counter()
        self.step()
        synchronize(self.settings.device)
        self.times.append(time.perf_counter() - start)

    def result(self) -> Measured:
        shape = self.case.shape
        flops = training_flops(self.parameter_tokens, shape.d_model, shape.batch, self.case.attention)
        return Measured(self.case, statistics.median(self.times), self.peak_mib, flops)


def measure(case: Case, settings: Settings) -> Measured:
    """Time ``case``'s training step (the model in train mode, AdamW, gradients set to ``None`` each step)."""
    runner = Runner(case, settings)
    for _ in range(settings.steps):
        runner.time_step()
    return runner.result()


def measure_all(cases: list[Case], settings: Settings, report=print) -> list[Measured]:
    """Measure the cases side by side: all are built and warmed up first, then timed in turns, one step of
    each per round, so that a slow spell of the machine (another process, the clock) falls on every case
    alike; the median of each. Ratios to the references are filled in."""
    runners = [Runner(case, settings) for case in cases]
    for _ in range(settings.steps):
        for runner in runners:
            runner.time_step()
    results = {runner.case.name: runner.result() for runner in runners}
    for result in results.values():
        report(f"  {result.case.name}: {result.seconds * 1000:.1f} ms/step")
        reference = results.get(result.case.reference or "")
        if reference is not None:
            result.ratio = result.tokens_per_second / reference.tokens_per_second
    return list(results.values())
