"""The helpers of the CUDA tests (tests/training/test_cuda.py) keep every tensor on the model's device: run here on the
``meta`` device, a tensor they make on the CPU fails as it did on a GPU (``greedy_without_cache`` made its
tokens on the CPU: 6 of the 13 CUDA tests failed on the first GPU they met, issue 41)."""

import torch

from tests.decoding.conftest import encoder_decoder, sources
from tests.decoding.test_greedy_cache import greedy_without_cache

META = torch.device("meta")


def test_greedy_without_cache_decodes_on_the_models_device():
    model = encoder_decoder().to(META)
    src, src_mask = (tensor.to(META) for tensor in sources())
    tokens = greedy_without_cache(model, src, src_mask, 1, 4)
    assert tokens.device == META and tokens.shape == (4, 4)
