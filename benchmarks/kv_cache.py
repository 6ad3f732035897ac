"""The key/value cache of incremental decoding with multi-head, grouped-query and multi-query attention
(``model.n_kv_heads``; Shazeer 2019, Ainslie et al. 2023): its bytes after decoding, measured on the tensors the
zoo's cache holds, beside the formula ``2 x layers x batch x n_kv_heads x positions x d_head x bytes``, and the
greedy decoding time (a loaded CPU's, not a quiet machine's).

    python -m benchmarks.kv_cache [--d_model 512 --n_heads 8 --num_layers 6 --batch 8 --positions 256]
"""

from __future__ import annotations

import argparse
import time

import torch

from zoo.decoding import DecoderOnlyStep, sample
from zoo.nn import DecoderOnly, TransformerConfig

NEVER = -1  # no model produces it: every row decodes to its full length


def cache_bytes(step: DecoderOnlyStep) -> int:
    """The bytes of every key and value the step's cache holds."""
    return sum(t.numel() * t.element_size() for layer in step.cache for t in (layer.self_attn.k, layer.self_attn.v))


def measure(args, n_kv_heads: int) -> dict:
    config = TransformerConfig(d_model=args.d_model, n_heads=args.n_heads, d_ff=4 * args.d_model, dropout=0.0,
                               norm_position="pre", pe="rope", n_kv_heads=n_kv_heads)  # fmt: skip
    torch.manual_seed(0)
    model = DecoderOnly(config, 1000, args.num_layers).eval()
    step = DecoderOnlyStep(model)
    start = torch.randint(4, 1000, (args.batch, 1))
    began = time.perf_counter()
    sample(step, start, args.positions, NEVER, 0)  # the cache holds the start and all but the last new token
    seconds = time.perf_counter() - began
    d_head = args.d_model // args.n_heads
    formula = 2 * args.num_layers * args.batch * n_kv_heads * args.positions * d_head * 4
    return {"kv": n_kv_heads, "bytes": cache_bytes(step), "formula": formula, "seconds": seconds}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.kv_cache", description=__doc__.splitlines()[0])
    for name, default in (("d_model", 512), ("n_heads", 8), ("num_layers", 6), ("batch", 8), ("positions", 256)):
        p.add_argument(f"--{name}", type=int, default=default)
    args = p.parse_args(argv)
    torch.set_grad_enabled(False)
    rows = [measure(args, kv) for kv in sorted({args.n_heads, args.n_heads // 2, 2, 1}, reverse=True)]
    print(f"d_model {args.d_model}, {args.n_heads} query heads, {args.num_layers} layers, batch {args.batch}, "
          f"{args.positions} positions, float32")  # fmt: skip
    print("| n_kv_heads | attention | KV cache (MiB) | formula (MiB) | vs MHA | greedy decoding (s) |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        kind = "MHA" if row["kv"] == args.n_heads else "MQA" if row["kv"] == 1 else "GQA"
        print(f"| {row['kv']} | {kind} | {row['bytes'] / 2**20:.2f} | {row['formula'] / 2**20:.2f} | "
              f"{row['bytes'] / rows[0]['bytes']:.3f}x | {row['seconds']:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
