"""The benchmark script's parts that its numbers rest on: the model FLOPs count, decoding without the cache
finding what the cache finds, and one quick run of a section end to end (issue 8; the script's timings are
never asserted)."""

import json

import pytest
import torch

from benchmarks.cases import SHAPE_A, decoder_only, nanogpt
from benchmarks.decoding import NEVER, RecomputingStep
from benchmarks.flops import Attention, matmul_parameter_tokens, training_flops
from benchmarks.throughput import main
from zoo.decoding import DecoderOnlyStep, beam_search, sample
from zoo.nn import DecoderOnly, TransformerConfig


def test_model_flops_count_every_matmul_weight_once_per_token():
    case = decoder_only("zoo", SHAPE_A)
    model, batch = case.build(), case.batch(torch.device("cpu"))
    counted = matmul_parameter_tokens(lambda: case.loss(model, batch))
    d, layers, tokens = SHAPE_A.d_model, SHAPE_A.layers, SHAPE_A.batch * SHAPE_A.length
    per_token = layers * (4 * d * d + 2 * d * SHAPE_A.d_ff) + SHAPE_A.vocab * d  # attention, FFN, tied output
    assert counted == per_token * tokens
    attention = 12 * d * layers * SHAPE_A.length * SHAPE_A.length * SHAPE_A.batch  # PaLM: 12 L d T per token
    assert training_flops(counted, d, SHAPE_A.batch, case.attention) == 6 * per_token * tokens + attention
    assert case.attention == [Attention(layers, SHAPE_A.length, SHAPE_A.length)]


def test_decoding_without_the_cache_finds_what_the_cache_finds():
    torch.manual_seed(0)
    config = TransformerConfig(d_model=16, n_heads=2, d_ff=32, dropout=0.0, max_len=32, pe="learned")
    model = DecoderOnly(config, 23, 2).double().eval()
    prompt = torch.randint(1, 23, (3, 5))
    greedy = [sample(step, prompt, 8, NEVER, 0) for step in (DecoderOnlyStep(model), RecomputingStep(model))]
    assert torch.equal(*greedy) and greedy[0].shape == (3, 8)
    beams = [beam_search(step, prompt, 4, 8, NEVER) for step in (DecoderOnlyStep(model), RecomputingStep(model))]
    assert [[h.tokens for h in found] for found in beams[0]] == [[h.tokens for h in found] for found in beams[1]]


def test_a_quick_knob_section_reports_every_knob_against_its_sibling(tmp_path, capsys):
    threads = torch.get_num_threads()
    try:
        main(["--quick", "--only", "knobs", "--steps", "1", "--threads", "1", "--json", str(tmp_path / "out.json")])
    finally:
        torch.set_num_threads(threads)
    numbers = json.loads((tmp_path / "out.json").read_text())
    rows = numbers["knobs"]
    names = [row["case"] for row in rows]
    assert names[0] == "zoo (a) layernorm, sinusoidal" and rows[0]["ratio"] is None
    assert {"norm=batchnorm", "pe=learned", "pe=rope", "norm_position=post"} <= set(names)
    assert all(row["tokens_per_s"] > 0 and 0 < row["mfu"] for row in rows)
    assert all(row["ratio"] > 0 for row in rows[1:])
    assert set(numbers["peaks"]) == {"fp32", "bf16"} and "torch " in numbers["machine"][0]
    assert "knobs: training step (median of 1)" in capsys.readouterr().out


def test_the_step_profiler_prints_the_operators_of_a_case(capsys):
    from benchmarks.profile_step import main as profile_main

    profile_main(["zoo-a", "--steps", "1", "--rows", "5", "--threads", "1"])
    table = capsys.readouterr().out
    assert "aten::mm" in table and "Self CPU" in table


FAKE_NANOGPT = """
from dataclasses import dataclass
import torch
from torch import nn
import torch.nn.functional as F

@dataclass
class GPTConfig:
    block_size: int
    vocab_size: int
    n_layer: int
    n_head: int
    n_embd: int
    dropout: float
    bias: bool

class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        print("number of parameters: ...")

    def forward(self, idx, targets):
        logits = self.wte(idx) @ self.wte.weight.T
        # nanoGPT's own .view calls: they need the contiguous batches its get_batch makes
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
"""


def test_nanogpt_rows_build_its_model_from_a_clone_as_its_train_py_does(tmp_path, capsys):
    (tmp_path / "model.py").write_text(FAKE_NANOGPT)  # the interface of nanoGPT's model.py
    case = nanogpt("nanoGPT (a)", SHAPE_A, tmp_path, "GPT-2 (HF) (a)")
    model = case.build()
    assert not model.config.bias and model.config.block_size == SHAPE_A.length
    assert (model.config.n_layer, model.config.n_head, model.config.n_embd) == (4, 4, 128)
    batch = case.batch(torch.device("cpu"))
    assert case.loss(model, batch).shape == () and case.tokens == SHAPE_A.batch * SHAPE_A.length
    assert capsys.readouterr().out == ""  # its parameter count is not printed into the table


def test_a_nanogpt_path_without_model_py_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--nanogpt", str(tmp_path), "--only", "train"])
    assert f"--nanogpt='{tmp_path}' has no model.py" in capsys.readouterr().err


def test_the_gpt2_section_runs_gpt2_small_padded_and_not_at_a_toy_size_on_the_cpu(tmp_path):
    threads = torch.get_num_threads()
    try:
        main(["--quick", "--only", "gpt2", "--steps", "1", "--threads", "1", "--json", str(tmp_path / "out.json")])
    finally:
        torch.set_num_threads(threads)
    rows = {row["case"]: row for row in json.loads((tmp_path / "out.json").read_text())["gpt2"]}
    assert {"zoo GPT-2 small", "zoo GPT-2 small, vocab_multiple=64"} <= set(rows)  # and HF's, where installed
    assert all(row["tokens_per_s"] > 0 for row in rows.values())
