"""``python benchmarks/profile_step.py CASE [--steps N] [--rows N] [--threads N]``: where one training step of a
benchmark case spends its time, by operator (``torch.profiler``, self CPU time of ``--steps`` steps after 5 of
warm-up). The way each change of docs/performance.md was found. Cases: the keys of :data:`CASES`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import this checkout's benchmarks and zoo
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from benchmarks import cases as c  # noqa: E402

CASES = {
    "zoo-a": lambda: c.decoder_only("zoo decoder-only (a)", c.SHAPE_A),
    "gpt2-a": lambda: c.gpt2("GPT-2 (HF) (a)", c.SHAPE_A),
    "zoo-b": lambda: c.decoder_only("zoo decoder-only (b)", c.SHAPE_B),
    "gpt2-b": lambda: c.gpt2("GPT-2 (HF) (b)", c.SHAPE_B),
    "zoo-translation": lambda: c.encoder_decoder("zoo encoder-decoder", c.TRANSLATION),
    "nn-transformer": lambda: c.torch_transformer("nn.Transformer", c.TRANSLATION),
    "zoo-sst2": lambda: c.encoder_only("zoo encoder-only", c.SST2),
    "bert": lambda: c.bert("BERT (HF)", c.SST2),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python benchmarks/profile_step.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=list(CASES))
    parser.add_argument("--steps", type=int, default=10, help="profiled steps (default 10)")
    parser.add_argument("--rows", type=int, default=25, help="operators shown (default 25)")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    args = parser.parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    case = CASES[args.case]()
    torch.manual_seed(0)
    model, batch = case.build().train(), case.batch(torch.device("cpu"))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step() -> None:
        case.loss(model, batch).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for _ in range(5):
        step()
    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        for _ in range(args.steps):
            step()
    print(profiler.key_averages().table(sort_by="self_cpu_time_total", row_limit=args.rows))


if __name__ == "__main__":
    main()
