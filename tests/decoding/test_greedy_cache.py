"""Greedy decoding with a key/value cache equals decoding by recomputing the whole prefix."""

import pytest
import torch

from tests.nn.conftest import tiny_config
from zoo.decoding import greedy_decode, strip_after_eos
from zoo.nn import NORMS, POSITIONAL_ENCODINGS, EncoderDecoder


def greedy_without_cache(model, src, src_mask, bos, max_len):
    memory = model.encode(src, src_mask)
    tokens = torch.full((src.shape[0], 1), bos, device=src.device)  # the model's device (tests/training/test_cuda.py)
    for _ in range(max_len):
        logits = model.output(model.decode(tokens, memory, None, src_mask))[:, -1]
        logits[:, [0, 1]] = float("-inf")  # padding and <bos> are never a next token
        tokens = torch.cat([tokens, logits.argmax(-1, keepdim=True)], dim=1)
    return tokens[:, 1:]


@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
@pytest.mark.parametrize("norm", NORMS.names())
def test_cached_greedy_equals_recomputation(pe, norm):
    torch.manual_seed(0)
    model = EncoderDecoder(tiny_config(pe=pe, norm=norm, norm_position="pre"), 30, 30, 2, 2).double().eval()
    with torch.no_grad():  # running statistics that differ by feature and (causal BatchNorm) by position
        for name, buffer in model.named_buffers():
            if name.rsplit(".", 1)[-1].startswith("running_"):
                buffer.copy_(torch.rand_like(buffer) + 0.5)
    src = torch.randint(4, 30, (3, 7))
    src_mask = torch.zeros(3, 7, dtype=torch.bool)
    src_mask[1, 5:] = True
    # eos_id=-1 never occurs, so every hypothesis runs the full length and the two can be compared position-wise
    cached = greedy_decode(model, src, src_mask, bos_id=1, eos_id=-1, pad_id=0, max_len=9)
    torch.testing.assert_close(cached, greedy_without_cache(model, src, src_mask, 1, 9))


def test_strip_after_eos():
    assert strip_after_eos(torch.tensor([[5, 6, 2, 0], [7, 8, 9, 10]]), eos_id=2) == [[5, 6], [7, 8, 9, 10]]
