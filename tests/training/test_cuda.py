"""On a CUDA GPU (``@pytest.mark.cuda``; skipped with the reason elsewhere): bf16 autocast gives float32's first
loss and finite steps, cached decoding gives recomputation's tokens, and a two-step ``fit`` through the CLI runs
on the GPU and records it, its batches loaded by workers into pinned memory."""

import pytest
import torch

from tests.cli.helpers import read_run, shakespeare_args
from tests.decoding.conftest import PAD, encoder_decoder, language_model, sources
from tests.decoding.test_greedy_cache import greedy_without_cache
from tests.decoding.test_sampling import recomputed_greedy
from tests.training import loader_probe
from tests.training.test_bf16_mixed import TOLERANCE, VARIANTS, _task_and_batch, bf16_mixed_losses
from zoo.cli.main import main
from zoo.data.loader_options import MAX_AUTO_WORKERS
from zoo.decoding import generate_ids, greedy_decode
from zoo.registry import POSITIONAL_ENCODINGS

pytestmark = pytest.mark.cuda
CUDA = torch.device("cuda")


def on_cuda(batch: dict) -> dict:
    return {key: value.to(CUDA) if isinstance(value, torch.Tensor) else value for key, value in batch.items()}


@pytest.mark.parametrize("variant", VARIANTS)
def test_first_loss_under_cuda_bf16_autocast_equals_float32(variant):
    task, batch = _task_and_batch(variant, pe="rope")
    task, batch = task.to(CUDA), on_cuda(batch)
    state = {k: v.clone() for k, v in task.state_dict().items()}
    full, _ = task.training_loss(batch)
    task.load_state_dict(state)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        mixed, _ = task.training_loss(batch)
    assert mixed.dtype == torch.float32 and torch.isfinite(mixed)
    assert abs(mixed.item() - full.item()) < TOLERANCE


@pytest.mark.parametrize("variant", VARIANTS)
def test_bf16_mixed_steps_on_cuda_stay_finite_and_learn(variant):
    task, batch = _task_and_batch(variant, norm="layernorm")
    losses = bf16_mixed_losses(task, batch, "gpu")
    assert len(losses) == 4 and all(torch.isfinite(loss) for loss in losses)
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("pe", POSITIONAL_ENCODINGS.names())
def test_cached_decoding_equals_recomputation_on_cuda(pe):
    """In float64, as on the CPU: the cache and the recomputation agree to the last bit that argmax sees."""
    model = encoder_decoder(pe).to(CUDA)
    src, src_mask = (tensor.to(CUDA) for tensor in sources())
    cached = greedy_decode(model, src, src_mask, bos_id=1, eos_id=-1, pad_id=PAD, max_len=9)
    torch.testing.assert_close(cached, greedy_without_cache(model, src, src_mask, 1, 9))
    lm = language_model(pe).to(CUDA)
    prompt = torch.tensor([4, 9, 11, 5], device=CUDA)
    assert generate_ids(lm, prompt, 15, eos_id=-1, pad_id=PAD)[0] == recomputed_greedy(lm, prompt, 15)


def test_a_two_step_fit_runs_on_the_gpu_and_records_it(data_dir, cli_env):
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2", "--trainer.val_check_interval=2"]
    main([*args, "--trainer.accelerator=gpu", "--trainer.precision=bf16-mixed"])
    (run_dir,) = (cli_env / "runs").iterdir()
    summary = read_run(run_dir)["summary"]
    assert summary["status"] == "finished" and summary["world_size"] == 1
    assert summary["devices"] == {"accelerator": "cuda", "count": 1, "names": [torch.cuda.get_device_name(0)]}
    assert summary["precision"] == "bf16-mixed"
    assert torch.isfinite(torch.tensor(summary["final"]["val_loss"]))


def test_a_gpu_run_loads_batches_in_workers_into_pinned_memory(data_dir, cli_env):
    """Batches built ahead by worker processes, pinned, so Lightning's non-blocking copy lets the host run ahead."""
    loader_probe.SEEN.clear()
    args = [*shakespeare_args(data_dir), "--trainer.max_steps=2", "--trainer.val_check_interval=2"]
    main([*args, "--trainer.accelerator=gpu", "--trainer.callbacks+=tests.training.loader_probe.LoaderProbe"])
    assert loader_probe.SEEN["pin_memory"] is True
    assert 1 <= loader_probe.SEEN["num_workers"] <= MAX_AUTO_WORKERS
    assert loader_probe.SEEN["devices"] == {"cuda"}


def test_a_decoding_loop_on_cuda_stops_where_the_cpu_one_does():
    """The lagged stop flag (a pinned host buffer, filled without waiting, read after its copy's event) gives on
    the GPU the ids the CPU gives, for rows that end with ``<eos>`` at different steps and rows cut at a limit."""
    from tests.decoding.test_stopping import EOS, Scripted
    from zoo.decoding.sampling import sample

    script = [[4, 5, EOS], [4, EOS], [5, 5, 5, 5, 5, 5, EOS], [6] * 12]
    limit = torch.tensor([9, 9, 9, 5])

    def on(device):
        step = Scripted(script)
        moved = lambda tokens: step(tokens).to(device)  # noqa: E731 (the step's log-probabilities on the device)
        start = torch.zeros(len(script), 1, dtype=torch.long, device=device)
        return sample(moved, start, limit.to(device), EOS, PAD, max_steps=9)

    on_gpu = on(CUDA)
    assert on_gpu.device.type == "cuda"
    assert torch.equal(on_gpu.cpu(), on(torch.device("cpu")))


def test_beam_search_on_cuda_finds_what_the_cpu_finds():
    """Beam search with its finished hypotheses on the device (merged by a stable sort on the GPU, the stop read
    a few steps late) finds on the GPU the translations it finds on the CPU, float64 both."""
    from zoo.decoding import max_lengths, search_translations

    src, mask = sources()
    limit = max_lengths(mask, 1.2, 3)

    def on(device):
        model = encoder_decoder(seed=3, eos=0.12).to(device)
        found = search_translations(model, src.to(device), mask.to(device), 1, 2, limit.to(device), 4, 0.6, 3, 12)
        assert found.ids.device.type == device.type
        return found.hypotheses()

    on_gpu, on_cpu = on(CUDA), on(torch.device("cpu"))
    assert [[(h.tokens, h.ended) for h in row] for row in on_gpu] == [
        [(h.tokens, h.ended) for h in row] for row in on_cpu
    ]
    scores = lambda found: [h.score for row in found for h in row]  # noqa: E731
    assert scores(on_gpu) == pytest.approx(scores(on_cpu), abs=1e-9)
