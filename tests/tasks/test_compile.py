"""``model.compile=true`` (issue 8): the network runs through torch.compile for every variant, computes what the
eager network computes (loss and gradients), and its checkpoints are the eager network's (the same keys).

The suite traces with the ``aot_eager`` backend (TorchDynamo and AOTAutograd, forward and backward, without
Inductor's C++ code generation, which takes minutes on a 2-core CPU); `benchmarks/throughput.py --compile`
measures the real thing."""

import pytest
import torch

from tests.training.test_bf16_mixed import VARIANTS, _task_and_batch
from zoo.decoding import DecoderOnlyStep
from zoo.nn.attention_maps import recorded_attention
from zoo.registry import POSITIONAL_ENCODINGS
from zoo.tasks.compiling import BACKEND_ENV


@pytest.fixture
def aot_eager(monkeypatch):
    monkeypatch.setenv(BACKEND_ENV, "aot_eager")
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_compiled_network_computes_the_eager_loss_and_gradients(variant, aot_eager):
    eager, batch = _task_and_batch(variant, norm="layernorm", pe="rope")
    compiled, _ = _task_and_batch(variant, norm="layernorm", pe="rope", compile=True)
    assert compiled.network._compiled_call_impl is not None and eager.network._compiled_call_impl is None
    assert compiled.state_dict().keys() == eager.state_dict().keys()  # checkpoints load either way
    compiled.load_state_dict(eager.state_dict())
    losses = []
    for task in (eager, compiled):
        loss, _ = task.training_loss(batch)
        loss.backward()
        losses.append(loss)
    torch.testing.assert_close(losses[1], losses[0], atol=1e-5, rtol=1e-5)
    for (name, p), q in zip(eager.named_parameters(), compiled.parameters(), strict=True):
        torch.testing.assert_close(q.grad, p.grad, atol=1e-5, rtol=1e-4, msg=name)


def test_an_unknown_backend_is_refused_naming_the_variable(monkeypatch):
    monkeypatch.setenv(BACKEND_ENV, "inductr")
    message = r"^ZOO_COMPILE_BACKEND='inductr' is not a torch.compile backend; valid: .*inductor"
    with pytest.raises(ValueError, match=message):
        _task_and_batch("decoder_only", compile=True)


def test_attention_maps_and_decoding_of_a_compiled_network_compile_nothing(aot_eager):
    """``recorded_attention`` and a decoding step run the network eagerly: the maps are the eager network's,
    and no graph is compiled (a graph per cache length otherwise)."""
    eager, batch = _task_and_batch("decoder_only")
    task, _ = _task_and_batch("decoder_only", compile=True)
    task.load_state_dict(eager.state_dict())
    graphs = torch._dynamo.utils.counters["stats"]
    graphs.clear()
    maps = []
    for model in (eager.network.eval(), task.network.eval()):
        with torch.no_grad(), recorded_attention(model) as weights:
            model(batch["tokens"])
        maps.append(weights)
        step = DecoderOnlyStep(model)
        with torch.no_grad():
            step(batch["tokens"][:, :3]), step(batch["tokens"][:, 3:4])
    assert maps[1].keys() == maps[0].keys() and maps[0]
    for name in maps[0]:
        torch.testing.assert_close(maps[1][name], maps[0][name])
    assert graphs["unique_graphs"] == 0
    with torch.no_grad():
        task.network(batch["tokens"])
    assert graphs["unique_graphs"] == 1  # the same call outside them is compiled


def resized(batch: dict, size: int, length: int) -> dict:
    """``batch`` with ``size`` rows of ``length`` tokens (its rows and columns repeated, then cut)."""
    return {key: value.repeat(3, 3)[:size, :length] for key, value in batch.items()}


@pytest.mark.slow
@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
def test_every_positional_encoding_compiles_once_per_mode_whatever_the_shapes(pe, aot_eager):
    """Batches of 4, 1 and 3 rows and lengths 6, 5 and 9 train on one graph, and evaluate on one other: a
    table cached while tracing, or a bias of batch 1 left to SDPA's broadcasting (ALiBi, T5: a guard on
    ``B != 1``), compiled more, and Dynamo, allowed two, fails on a third."""
    task, batch = _task_and_batch("decoder_only", pe=pe, compile=True)
    with torch._dynamo.config.patch(recompile_limit=2, fail_on_recompile_limit_hit=True):
        for size, length in ((4, 6), (1, 5), (3, 9)):
            task.training_loss(resized(batch, size, length))[0].backward()
        task.eval()
        with torch.no_grad():
            for size, length in ((2, 7), (1, 3)):
                task.training_loss(resized(batch, size, length))
    assert task.compiled.graphs == {"training": 1, "evaluation": 1}
