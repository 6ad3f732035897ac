"""``python benchmarks/throughput.py [--quick] [--dtype fp32|bf16] [--threads N] [--only SECTION ...]``: the
zoo's speed against reference implementations, in one process, side by side at the same shapes (issue 8).

Sections (``--only`` picks some; all by default):

- ``train``: a training step (forward, backward, AdamW step; the median of ``--steps`` after a warm-up) of the
  decoder-only model against Hugging Face's GPT-2 at shapes (a) and (b) (and nanoGPT's model, given a clone
  with ``--nanogpt``), the encoder-decoder against
  ``torch.nn.Transformer``, the encoder-only model against Hugging Face's BERT classifier;
- ``knobs``: the decoder-only model at shape (a) with one knob changed per row, against its layernorm /
  sinusoidal sibling, so that no knob hides a slow path;
- ``scaling``: shape (b) at blocks 128 to 1024 against GPT-2: tokens per second and peak memory;
- ``decoding``: greedy and beam-4 search of 128 new tokens after 4 prompts of 64 tokens, with and without the
  key/value cache, on the decoder-only model at shape (b);
- ``gpt2``: GPT-2 small (:data:`benchmarks.cases.GPT2_SMALL`) on a GPU, the zoo with and without its
  vocabulary padded to a multiple of 64 (``model.vocab_multiple``), against Hugging Face's; on a CPU (or with
  ``--quick``) at a toy size of the same vocabulary;
- ``data``: the padding of ``max_tokens`` batches (Multi30k, SST-2); ``startup``: from ``python -m zoo fit`` to
  the first training step with a warm cache (and the imports that take that time).

Model FLOPs utilisation (MFU) is model FLOPs per second (PaLM, appendix B: 6 x matmul parameters x tokens plus
the attention term) over the matmul peak this script measures first, in the run's dtype.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import this checkout's benchmarks and zoo
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from benchmarks import cases as c  # noqa: E402
from benchmarks.data import padding_fraction, startup_times  # noqa: E402
from benchmarks.decoding import measure_decoding  # noqa: E402
from benchmarks.machine import DTYPES, machine_line, matmul_peak  # noqa: E402
from benchmarks.report import Report  # noqa: E402
from benchmarks.training import Settings, measure, measure_all  # noqa: E402
from zoo.nn import NORMS, POSITIONAL_ENCODINGS  # noqa: E402
from zoo.training.precision import MATMUL_PRECISIONS, set_matmul_precision  # noqa: E402

SECTIONS = ("train", "knobs", "scaling", "gpt2", "decoding", "data", "startup")
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python benchmarks/throughput.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few steps, short sequences and decoding: a smoke run")
    parser.add_argument("--dtype", choices=list(DTYPES), default="fp32", help="bf16: under bf16 autocast")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS), metavar="SECTION",
                        help=f"run only these sections: {', '.join(SECTIONS)}")  # fmt: skip
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--matmul_precision", choices=MATMUL_PRECISIONS, default="highest")
    parser.add_argument("--compile", action="store_true", help="train through torch.compile")
    parser.add_argument("--steps", type=int, default=None, help="timed steps per row (default 20; --quick: 3)")
    parser.add_argument("--data_dir", type=Path, default=DATA, help="the local data sets (data, startup)")
    parser.add_argument("--format", choices=["table", "markdown"], default="table")
    parser.add_argument("--nanogpt", type=Path, default=None, metavar="CLONE",
                        help="a clone of karpathy/nanoGPT: rows of its model beside the decoder-only ones")  # fmt: skip
    parser.add_argument("--json", type=Path, default=None, help="also write every number to this file")
    args = parser.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        parser.error(f"--threads={args.threads} is not valid; it must be a positive integer")
    if args.steps is not None and args.steps < 1:
        parser.error(f"--steps={args.steps} is not valid; it must be a positive integer")
    if args.nanogpt is not None and not (args.nanogpt / "model.py").is_file():
        parser.error(f"--nanogpt={str(args.nanogpt)!r} has no model.py; give a clone of karpathy/nanoGPT")
    if {"data", "startup"} & set(args.only) and not args.data_dir.is_dir():
        parser.error(f"--data_dir={str(args.data_dir)!r} is not a folder; the data and startup sections read the "
                     f"local data sets there (or leave them out with --only)")  # fmt: skip
    return args


def training_cases(nanogpt: Path | None = None) -> list[c.Case]:
    """The rows of the ``train`` section, each zoo row right after its reference (and nanoGPT's, from a
    local clone, beside the zoo's decoder-only rows, compared with GPT-2 as well)."""
    decoder_rows = []
    for label, shape in (("(a)", c.SHAPE_A), ("(b)", c.SHAPE_B)):
        reference = f"GPT-2 (HF) {label}"
        decoder_rows += [c.gpt2(reference, shape), c.decoder_only(f"zoo decoder-only {label}", shape, reference)]
        if nanogpt is not None:  # and the zoo in its layout (no biases), for a like-for-like row
            decoder_rows.append(c.nanogpt(f"nanoGPT {label}", shape, nanogpt, reference))
            decoder_rows.append(c.decoder_only(f"zoo bias=false {label}", shape, reference, bias=False))
    return [
        *decoder_rows,
        c.torch_transformer("nn.Transformer", c.TRANSLATION),
        c.encoder_decoder("zoo encoder-decoder", c.TRANSLATION, "nn.Transformer"),
        c.bert("BERT (HF)", c.SST2),
        c.encoder_only("zoo encoder-only", c.SST2, "BERT (HF)"),
    ]


def knob_cases() -> list[c.Case]:
    """Shape (a) with ``pe=sinusoidal``, ``norm=layernorm``, ``norm_position=pre``, then each other value of
    each knob, one at a time, compared with it."""
    sibling = "zoo (a) layernorm, sinusoidal"
    rows = [c.decoder_only(sibling, c.SHAPE_A, pe="sinusoidal")]
    for norm in NORMS.names():
        if norm != "layernorm":
            rows.append(c.decoder_only(f"norm={norm}", c.SHAPE_A, sibling, pe="sinusoidal", norm=norm))
    for pe in POSITIONAL_ENCODINGS.names():
        if pe != "sinusoidal":
            rows.append(c.decoder_only(f"pe={pe}", c.SHAPE_A, sibling, pe=pe))
    rows.append(c.decoder_only("norm_position=post", c.SHAPE_A, sibling, pe="sinusoidal", norm_position="post"))
    rows.append(c.decoder_only("bias=false", c.SHAPE_A, sibling, pe="sinusoidal", bias=False))
    return rows


def scaling_cases(quick: bool) -> list[c.Case]:
    """Shape (b) at longer and longer blocks, GPT-2 and the zoo."""
    rows = []
    for block in (128, 256) if quick else (128, 256, 512, 1024):
        shape = c.Shape(**{**c.SHAPE_B.__dict__, "length": block})
        reference = f"GPT-2 (HF) T={block}"
        rows += [c.gpt2(reference, shape), c.decoder_only(f"zoo T={block}", shape, reference)]
    return rows


def gpt2_cases(device: torch.device, quick: bool) -> list[c.Case]:
    """GPT-2 small, Hugging Face's and the zoo's (GPT-2's layout: biases, GELU, tied embeddings), the zoo's also
    with its 50257 rows padded to 50304 (Hugging Face's where ``transformers`` is installed); a toy depth and
    width of the same vocabulary on a CPU or ``quick``."""
    toy = quick or device.type != "cuda"
    shape = replace(c.GPT2_SMALL, layers=2, heads=2, d_model=64, d_ff=256, length=64, batch=2) if toy else c.GPT2_SMALL
    reference = "GPT-2 (HF) small" if importlib.util.find_spec("transformers") is not None else None
    return [
        *([c.gpt2(reference, shape)] if reference else []),
        c.decoder_only("zoo GPT-2 small", shape, reference),
        c.decoder_only("zoo GPT-2 small, vocab_multiple=64", shape, reference, vocab_multiple=64),
    ]


def measure_peaks(device: torch.device, quick: bool) -> dict[str, float]:
    """The float32 and bfloat16 matmul peaks, in FLOP/s."""
    size = 1024 if quick else (8192 if device.type == "cuda" else 2048)
    return {name: matmul_peak(device, dtype, size) for name, dtype in DTYPES.items()}


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    set_matmul_precision(args.matmul_precision)
    device = torch.device(args.device)
    report = Report(args.format)
    report.line(machine_line(device, args.dtype, args.matmul_precision))
    peaks = measure_peaks(device, args.quick)
    report.line("matmul peak: " + ", ".join(f"{k} {v / 1e9:.1f} GFLOP/s" for k, v in peaks.items()))
    steps = args.steps or (3 if args.quick else 20)
    settings = Settings(device, args.dtype == "bf16", steps, 1 if args.quick else 3, args.compile)
    peak = peaks[args.dtype]
    measure(c.decoder_only("warm-up", c.SHAPE_A), replace(settings, steps=1, warmup=1))  # one-time costs
    groups = {
        "train": lambda: training_cases(args.nanogpt),
        "knobs": knob_cases,
        "scaling": lambda: scaling_cases(args.quick),
        "gpt2": lambda: gpt2_cases(device, args.quick),
    }
    for section, make_cases in groups.items():
        if section in args.only:
            report.training(section, measure_all(make_cases(), settings, report.progress), peak, steps)
    if "decoding" in args.only:
        shape, new_tokens = (c.SHAPE_A, 32) if args.quick else (replace(c.SHAPE_B, batch=4), 128)
        report.decoding(measure_decoding(shape, 64, new_tokens, device, settings.autocast), new_tokens, shape)
    if "data" in args.only:
        report.padding([padding_fraction(config, args.data_dir, name) for config, name in DATA_SETS])
    if "startup" in args.only:
        report.startup(startup_times(args.data_dir))
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": report.lines, "peaks": peaks, **report.numbers}, indent=2))


DATA_SETS = [("encoder_decoder/multi30k.yaml", "multi30k"), ("encoder_only/sst2.yaml", "sst2")]

if __name__ == "__main__":
    main()
