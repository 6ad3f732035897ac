"""One gradient norm per optimiser step (zoo.tasks.gradients), shared by the non-finite check, the logged grad_norm
and clipping: it equals torch's, clipping with it equals ``clip_grad_norm_``, and training with it takes the
same steps as Lightning's own clipping."""

import lightning.pytorch as pl
import pytest
import torch
from torch.utils.data import DataLoader

import zoo.tasks.base
import zoo.tasks.optimizer
from zoo.tasks import LanguageModelTask
from zoo.tasks.gradients import clip_by_norm, step_gradient_norm

TINY = dict(vocab_size=50, d_model=32, n_heads=2, d_ff=64, dropout=0.0, warmup_steps=1, max_len=16, lr=0.01)


def _model_with_gradients(seed: int = 0) -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    model(torch.randn(32, 8)).pow(2).sum().backward()
    model[0].bias.grad = None  # a parameter without a gradient is left out
    return model, torch.optim.AdamW(model.parameters())


def test_the_norm_is_torch_total_norm_and_is_computed_once_a_step():
    model, optimizer = _model_with_gradients()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    norm = step_gradient_norm(optimizer, step=3)
    assert torch.equal(norm, torch.nn.utils.get_total_norm(grads))
    for p in model.parameters():  # gradients changed within the step: the step's norm stays the one taken
        if p.grad is not None:
            p.grad.mul_(2)
    assert step_gradient_norm(optimizer, step=3) is norm
    assert torch.allclose(step_gradient_norm(optimizer, step=4), 2 * norm)


def test_no_gradient_has_no_norm():
    model = torch.nn.Linear(3, 3)
    assert step_gradient_norm(torch.optim.SGD(model.parameters()), step=0) is None


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_the_norm_is_not_finite_when_one_gradient_entry_is_not(bad):
    model, optimizer = _model_with_gradients()
    model[2].weight.grad[1, 3] = bad
    assert not torch.isfinite(step_gradient_norm(optimizer, step=0))


@pytest.mark.parametrize("max_norm", [0.05, 1e6])
def test_clipping_with_the_shared_norm_equals_clip_grad_norm(max_norm):
    model, optimizer = _model_with_gradients()
    expected, _ = _model_with_gradients()
    torch.nn.utils.clip_grad_norm_([p for p in expected.parameters() if p.grad is not None], max_norm)
    clip_by_norm(optimizer, max_norm, step=0)
    for ours, theirs in zip(model.parameters(), expected.parameters(), strict=True):
        assert (ours.grad is None) == (theirs.grad is None)
        if ours.grad is not None:
            assert torch.allclose(ours.grad, theirs.grad, rtol=1e-6, atol=0)


def _train(precision: str, algorithm: str | None = None) -> tuple[dict, list[float]]:
    torch.manual_seed(0)
    task = LanguageModelTask(num_layers=2, **TINY)
    tokens = torch.randint(4, 50, (6, 4, 11), generator=torch.Generator().manual_seed(0))
    batches = [dict(tokens=t[:, :-1], targets=t[:, 1:]) for t in tokens]
    norms = []

    class Record(pl.Callback):
        def on_before_optimizer_step(self, trainer, module, optimizer):
            norms.append(float(step_gradient_norm(optimizer, trainer.global_step)))

    trainer = pl.Trainer(
        accelerator="cpu",
        precision=precision,
        max_steps=6,
        gradient_clip_val=0.5,  # below the gradient norms of these steps: every step is clipped
        gradient_clip_algorithm=algorithm,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[Record()],
    )
    trainer.fit(task, DataLoader(batches, batch_size=None))
    return {k: v.clone() for k, v in task.state_dict().items()}, norms


@pytest.mark.parametrize("precision", ["32-true", "bf16-mixed"])
def test_training_with_the_shared_norm_takes_lightnings_steps(precision, monkeypatch):
    # one AdamW kernel for both: Lightning refuses to clip a fused one under bf16-mixed, and this compares clipping
    monkeypatch.setattr(zoo.tasks.optimizer, "fused_optimizer_supported", lambda *args: False)
    ours, norms = _train(precision)
    assert min(norms) > 0.5  # clipping was active at every step
    monkeypatch.setattr(zoo.tasks.base, "plain_norm_clipping", lambda *args: False)  # Lightning's clip_grad_norm_
    theirs, _ = _train(precision)
    for name, value in ours.items():
        assert torch.allclose(value, theirs[name], rtol=1e-5, atol=1e-7), name


def test_clipping_by_value_is_left_to_lightning():
    trainer = pl.Trainer(accelerator="cpu", gradient_clip_val=0.5, gradient_clip_algorithm="value", logger=False)
    assert not zoo.tasks.optimizer.plain_norm_clipping(trainer, 0.5, trainer.gradient_clip_algorithm)
    plain = pl.Trainer(accelerator="cpu", gradient_clip_val=0.5, logger=False)
    assert zoo.tasks.optimizer.plain_norm_clipping(plain, 0.5, plain.gradient_clip_algorithm)
    assert not zoo.tasks.optimizer.plain_norm_clipping(plain, None, None)
