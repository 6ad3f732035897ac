"""``python benchmarks/recurrent.py [--quick] [--threads N] [--compile BACKEND] [--format markdown]``: the zoo's
recurrent networks against plain PyTorch loops of the same shape and parameters (issue 47, item 6).

- ``attention``: a training step (forward, backward, gradient clipping at 1, an Adam step; the median of
  ``--steps`` after two warm-up steps) of ``RecurrentEncoderDecoder`` with a bidirectional GRU encoder and
  additive attention, at the Multi30k anchors' shape (bentrevett's notebook 3: embeddings 256, states 512; the
  zoo's joint vocabulary of 8000), against :class:`benchmarks.recurrent_reference.PlainAttentionModel`;
- ``language model``: the same step of ``RecurrentLanguageModel`` (a 2-layer LSTM, tied, the Tiny Shakespeare
  config's shape) against :class:`benchmarks.recurrent_reference.PlainLanguageModel`;
- ``torch.compile``: what ``torch.compile`` (``--compile``'s backend) makes of each zoo network: its graphs and
  graph breaks (``torch._dynamo.explain``), the first step's compile time and the compiled step's time.

Batches are random ids with random lengths (the source and target of a translation batch 10 to 30 tokens,
right-padded), drawn with one seed; the same batch for every row. Target: the zoo within 1.1x of the plain loop.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import this checkout's benchmarks and zoo
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import Tensor, nn  # noqa: E402

from benchmarks.recurrent_reference import PlainAttentionModel, PlainLanguageModel  # noqa: E402
from benchmarks.report import Report  # noqa: E402
from zoo.nn.recurrent import RecurrentConfig, RecurrentEncoderDecoder, RecurrentLanguageModel  # noqa: E402


@dataclass(frozen=True)
class Sizes:
    """The shapes of one benchmark run: ``vocab`` V, ``d_embed`` E, ``hidden`` H, ``batch`` B, ``length`` T."""

    vocab: int
    d_embed: int
    hidden: int
    batch: int
    length: int


ATTENTION = Sizes(vocab=8000, d_embed=256, hidden=512, batch=128, length=30)  # the anchors' shape
LANGUAGE_MODEL = Sizes(vocab=65, d_embed=256, hidden=256, batch=32, length=64)  # tinyshakespeare-rnn.yaml
QUICK_ATTENTION = Sizes(vocab=300, d_embed=16, hidden=16, batch=8, length=8)
QUICK_LANGUAGE_MODEL = Sizes(vocab=65, d_embed=16, hidden=16, batch=4, length=16)


@dataclass
class Case:
    """One row: a model, the loss of a batch, its tokens per step."""

    name: str
    model: nn.Module
    loss: Callable[[nn.Module], Tensor]
    tokens: int


def translation_batch(sizes: Sizes, seed: int = 0) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``(B, T)`` source, shifted target and next-token ids, and the source's padding mask (lengths 10 to T, or a
    third of T to T for a short T)."""
    generator = torch.Generator().manual_seed(seed)
    shortest = min(10, max(1, sizes.length // 3))

    def padded() -> tuple[Tensor, Tensor]:
        lengths = torch.randint(shortest, sizes.length, (sizes.batch,), generator=generator)
        ids = torch.randint(4, sizes.vocab, (sizes.batch, sizes.length + 1), generator=generator)
        mask = torch.arange(sizes.length + 1)[None] >= lengths[:, None]
        return ids.masked_fill(mask, 0), mask

    src, src_mask = padded()
    tgt, _ = padded()
    return src[:, :-1], tgt[:, :-1], tgt[:, 1:], src_mask[:, :-1]


def attention_cases(sizes: Sizes) -> list[Case]:
    src, tgt_in, tgt_out, src_mask = translation_batch(sizes)
    config = RecurrentConfig(cell="gru", d_embed=sizes.d_embed, hidden_size=sizes.hidden, attention="additive")
    zoo = RecurrentEncoderDecoder(config, sizes.vocab, sizes.vocab, 1, 1, share_embeddings=True)
    plain = PlainAttentionModel(sizes.vocab, sizes.d_embed, sizes.hidden)
    loss = lambda logits: F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=0)  # noqa: E731
    tokens = int((tgt_out != 0).sum())
    return [
        Case("zoo RecurrentEncoderDecoder", zoo, lambda m: loss(m(src, tgt_in, src_mask)), tokens),
        Case("plain loop (GRUCell)", plain, lambda m: loss(m(src, tgt_in, src_mask)), tokens),
    ]


def language_model_cases(sizes: Sizes) -> list[Case]:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1, sizes.vocab, (sizes.batch, sizes.length + 1), generator=generator)
    config = RecurrentConfig(cell="lstm", d_embed=sizes.d_embed, hidden_size=sizes.hidden, bidirectional=False)
    zoo = RecurrentLanguageModel(config, sizes.vocab, 2, tie_embeddings=True)
    plain = PlainLanguageModel(sizes.vocab, sizes.d_embed, 2)
    loss = lambda m: F.cross_entropy(m(ids[:, :-1]).flatten(0, 1), ids[:, 1:].flatten())  # noqa: E731
    return [
        Case("zoo RecurrentLanguageModel", zoo, loss, sizes.batch * sizes.length),
        Case("plain nn.LSTM", plain, loss, sizes.batch * sizes.length),
    ]


def train_step(case: Case, model: nn.Module, optimizer: torch.optim.Optimizer) -> float:
    """One step's seconds: forward, backward, clipping at 1, Adam."""
    start = time.perf_counter()
    optimizer.zero_grad(set_to_none=True)
    case.loss(model).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return time.perf_counter() - start


def time_steps(case: Case, steps: int, model: nn.Module | None = None) -> tuple[float, float]:
    """The first step's seconds (with a compiled model: its compilation) and the median of ``steps`` after two
    warm-up steps."""
    model = case.model if model is None else model
    optimizer = torch.optim.Adam(case.model.parameters(), lr=1e-3)
    first = train_step(case, model, optimizer)
    train_step(case, model, optimizer)
    return first, statistics.median(train_step(case, model, optimizer) for _ in range(steps))


def compared(report: Report, title: str, cases: list[Case], steps: int) -> None:
    """Time the cases alternately (so that the machine's load falls on both) and print their table."""
    times: dict[str, list[float]] = {case.name: [] for case in cases}
    for _ in range(3):
        for case in cases:
            times[case.name].append(time_steps(case, max(1, steps // 3))[1])
    reference = statistics.median(times[cases[-1].name])
    rows = []
    for case in cases:
        seconds = statistics.median(times[case.name])
        parameters = sum(p.numel() for p in case.model.parameters())
        rows.append([case.name, f"{parameters / 1e6:.2f}M", f"{seconds * 1e3:.1f}", f"{case.tokens / seconds:,.0f}",
                     f"{seconds / reference:.2f}x"])  # fmt: skip
    report.table(title, ["network", "parameters", "ms/step", "target tokens/s", "vs plain"], rows)


def compiled(report: Report, cases: list[Case], backend: str, steps: int) -> None:
    """Graphs and graph breaks of each zoo network's loss under Dynamo, and its step compiled, against eager."""
    rows = []
    for case in cases:
        torch._dynamo.reset()
        explained = torch._dynamo.explain(case.loss)(case.model)
        eager = time_steps(case, steps)[1]
        model = torch.compile(case.model, backend=backend)
        first, step = time_steps(case, steps, model)
        rows.append([case.name, str(explained.graph_count), str(explained.graph_break_count), f"{first:.1f}",
                     f"{eager * 1e3:.1f}", f"{step * 1e3:.1f}", f"{eager / step:.2f}x"])  # fmt: skip
    columns = ["network", "graphs", "graph breaks", "first step s", "eager ms/step", "compiled ms/step", "speed-up"]
    report.table(f"torch.compile (backend {backend})", columns, rows)


def main(argv: list[str] | None = None) -> Report:
    parser = argparse.ArgumentParser(prog="python benchmarks/recurrent.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny shapes and few steps: a smoke run")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    parser.add_argument("--steps", type=int, default=9, help="timed steps per network (in three rounds)")
    parser.add_argument("--compile", default="inductor", help="torch.compile's backend; 'none': skip that table")
    parser.add_argument("--format", choices=["table", "markdown"], default="table")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    report = Report(args.format)
    report.line(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU, float32")
    attention = attention_cases(QUICK_ATTENTION if args.quick else ATTENTION)
    language = language_model_cases(QUICK_LANGUAGE_MODEL if args.quick else LANGUAGE_MODEL)
    steps = 3 if args.quick else args.steps
    compared(report, "attention model: bidirectional GRU + additive attention, one training step", attention, steps)
    compared(report, "language model: 2-layer LSTM, tied, one training step", language, steps)
    if args.compile != "none":
        compiled(report, [attention[0], language[0]], args.compile, steps)
    return report


if __name__ == "__main__":
    main()
