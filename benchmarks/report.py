"""The benchmark's output: rich tables on the terminal, or Markdown for ``docs/performance.md``; every number is
also kept for ``--json``."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from benchmarks.cases import Shape
from benchmarks.data import Padding
from benchmarks.decoding import Decoded
from benchmarks.training import Measured

TRAINING_COLUMNS = ["case", "layers/heads/d_model", "batch x length", "ms/step", "tokens/s", "vs reference",
                    "peak MiB", "MFU"]  # fmt: skip


def _shape(result: Measured) -> tuple[str, str]:
    s = result.case.shape
    return f"{s.layers}/{s.heads}/{s.d_model}", f"{s.batch} x {s.length}"


class Report:
    """Prints sections as they finish, in ``table`` (rich) or ``markdown`` form."""

    def __init__(self, form: str = "table") -> None:
        # not a terminal (a file, a pipe): wide enough that no table wraps
        self.console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
        self.form = form
        self.lines: list[str] = []
        self.numbers: dict[str, object] = {}

    def line(self, text: str) -> None:
        self.lines.append(text)
        self.console.print(text, markup=False)

    def progress(self, text: str) -> None:
        """A line while a section runs (not in Markdown output)."""
        if self.form == "table":
            self.console.print(text, style="dim", markup=False)

    def table(self, title: str, columns: list[str], rows: list[list[str]]) -> None:
        if self.form == "markdown":
            lines = [f"**{title}**", "", "| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
            lines += ["| " + " | ".join(row) + " |" for row in rows]
            self.console.print("\n".join(lines) + "\n", markup=False)
            return
        table = Table(title=title, title_justify="left")
        for i, column in enumerate(columns):
            table.add_column(column, justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*row)
        self.console.print(table)

    def training(self, section: str, results: list[Measured], peak_flops: float, steps: int) -> None:
        rows = []
        for r in results:
            ratio = "" if r.ratio is None else f"{r.ratio:.2f}x"
            rows.append([r.case.name, *_shape(r), f"{r.seconds * 1000:.1f}", f"{r.tokens_per_second:,.0f}", ratio,
                         f"{r.peak_mib:,.0f}", f"{100 * r.mfu(peak_flops):.1f}%"])  # fmt: skip
        self.table(f"{section}: training step (median of {steps})", TRAINING_COLUMNS, rows)
        self.numbers[section] = [
            {"case": r.case.name, "ms_per_step": r.seconds * 1000, "tokens_per_s": r.tokens_per_second,
             "ratio": r.ratio, "peak_mib": r.peak_mib, "mfu": r.mfu(peak_flops), "model_flops": r.flops}
            for r in results
        ]  # fmt: skip

    def decoding(self, results: list[Decoded], new_tokens: int, shape: Shape) -> None:
        cached = {r.name.split(",")[0]: r for r in results if r.name.endswith("cache")}
        rows = []
        for r in results:
            speedup = r.tokens_per_second / cached[r.name.split(",")[0]].tokens_per_second
            rows.append([r.name, f"{r.tokens:,}", f"{r.seconds:.2f}", f"{r.tokens_per_second:,.0f}", f"{speedup:.2f}x"])
        title = (
            f"decoding: {new_tokens} new tokens after each of {shape.batch} prompts, decoder-only "
            f"{shape.layers}/{shape.heads}/{shape.d_model} (tokens: of the output, beams not counted)"
        )
        self.table(title, ["search", "new tokens", "seconds", "tokens/s", "vs cache"], rows)
        self.numbers["decoding"] = [{"search": r.name, "tokens_per_s": r.tokens_per_second} for r in results]

    def padding(self, results: list[Padding]) -> None:
        rows = [
            [p.name, str(p.batches), f"{100 * p.source:.1f}%", "" if p.target is None else f"{100 * p.target:.1f}%"]
            for p in results
        ]
        self.table("data: padding of max_tokens train batches", ["config", "batches", "source", "target"], rows)
        self.numbers["padding"] = [p.__dict__ for p in results]

    def startup(self, times: dict[str, float]) -> None:
        self.table("startup (seconds)", ["what", "seconds"], [[k, f"{v:.2f}"] for k, v in times.items()])
        self.numbers["startup"] = times
