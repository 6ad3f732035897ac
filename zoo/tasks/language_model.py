"""Language modelling with the decoder-only Transformer or an LSTM/GRU (``model.architecture=rnn``; Zaremba et al.
2014, Karpathy's char-rnn)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from zoo.data.detokenize import decode_batch
from zoo.data.language_model import LanguageModelDataModule
from zoo.data.tokenizer import EOS_ID, PAD_ID
from zoo.decoding import decoder_only_step, sample
from zoo.decoding.settings import check_sampling
from zoo.messages import check_at_least
from zoo.nn import DecoderOnly
from zoo.nn.recurrent import RecurrentLanguageModel
from zoo.tasks.base import TaskModule
from zoo.tasks.metric_states import count_metric, sum_metric
from zoo.tasks.pending_text import PendingText


class LanguageModelTask(TaskModule):
    """Next-token cross-entropy; validation loss (nats per token), perplexity, and bits per character.

    ``predict`` continues each block of the split, as ``python -m zoo generate`` continues a prompt.

    Args:
        num_layers: depth.
        tie_embeddings: share the embedding and the output projection (Press and Wolf 2017).
        max_new_tokens: tokens ``predict`` adds to each block (fewer where it produces ``<eos>``).
        temperature: ``predict``'s sampling temperature; 0 is greedy search.
        top_k, top_p: ``predict`` samples among the ``top_k`` most likely tokens, or the smallest set of
            probability ``top_p`` (nucleus sampling, Holtzman et al. 2020); ``None``: no limit.
        **kwargs: the knobs of :class:`zoo.tasks.base.TaskModule`.

    Raises:
        ValueError: naming the field, for a value out of range.
    """

    monitor, monitor_mode, short_name = "val_loss", "min", "do"
    evaluation_metrics = ("loss", "ppl", "bpc")
    data_module = LanguageModelDataModule
    architecture = (*TaskModule.architecture, "num_layers", "tie_embeddings")

    def __init__(
        self,
        num_layers: int = 4,
        tie_embeddings: bool = True,
        max_new_tokens: int = 64,
        temperature: float = 0.0,
        top_k: int | None = None,
        top_p: float | None = None,
        **kwargs,
    ) -> None:
        check_at_least("model.num_layers", num_layers, 1)
        check_at_least("model.max_new_tokens", max_new_tokens, 1)
        check_sampling(temperature, top_k, top_p, prefix="model.")
        super().__init__(**kwargs)
        sums = {"nll": sum_metric, "tokens": count_metric}
        self.sums = nn.ModuleDict({f"{stage}_{k}": sums[k]() for stage in ("val", "test") for k in sums})

    def build_network(self) -> DecoderOnly | RecurrentLanguageModel:
        hp = self.hparams
        if self.recurrent is not None:
            return RecurrentLanguageModel(self.recurrent, hp.vocab_size, hp.num_layers, hp.tie_embeddings, PAD_ID)
        return DecoderOnly(self.config, hp.vocab_size, hp.num_layers, hp.tie_embeddings, PAD_ID)

    def forward(self, tokens: Tensor) -> Tensor:
        """``(B, T)`` ids -> ``(B, T, V)`` next-token logits."""
        return self.call_network(tokens)

    def summed_loss(self, batch: dict) -> tuple[Tensor, Tensor]:
        """The next-token cross-entropy (nats) summed over ``batch["targets"]`` ``(B, T)`` given
        ``batch["tokens"]`` ``(B, T)``, and the number of targets: the loss of training, validation, test and
        ``benchmarks/extrapolation.py``."""
        logits = self(batch["tokens"])
        targets = batch["targets"]
        loss = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten(), reduction="sum")
        # blocks are never padded; a fill, where torch.tensor would copy from the host and wait on a GPU
        return loss, torch.full((), targets.numel(), dtype=torch.long, device=targets.device)

    def training_loss(self, batch: dict) -> tuple[Tensor, Tensor]:
        loss, tokens = self.summed_loss(batch)
        return loss / tokens, tokens

    def evaluate(self, stage: str, batch: dict, batch_idx: int) -> None:
        nll, tokens = self.summed_loss(batch)
        self.sums[f"{stage}_nll"].update(nll)
        self.sums[f"{stage}_tokens"].update(tokens)

    def evaluation_settings(self, stage: str) -> tuple[str, ...]:
        """The decoder of ``predict``'s continuations; the losses depend on none."""
        return ("max_new_tokens", "temperature", "top_k", "top_p") if stage == "predict" else ()

    def log_stage(self, stage: str) -> None:
        loss = self.sums[f"{stage}_nll"].compute() / self.sums[f"{stage}_tokens"].compute()
        self.log(f"{stage}_loss", loss, prog_bar=True)
        self.log(f"{stage}_ppl", torch.exp(loss))
        per_token = getattr(self.trainer.datamodule, "characters_per_token", None)  # of the split evaluated
        chars_per_token = per_token({"val": "validation"}.get(stage, stage)) if per_token else None
        if chars_per_token:
            self.log(f"{stage}_bpc", loss / math.log(2) / chars_per_token)
        for metric in self.sums.values():
            metric.reset()

    def predict_step(self, batch: dict, batch_idx: int) -> dict:
        """For each block of the split, its continuation (the new text only) by greedy search or sampling
        (``model.max_new_tokens``, ``model.temperature``, ``model.top_k``, ``model.top_p``; the context slides
        over the last ``model.max_len`` tokens): ``{"index": (B,), "prediction": B strings}``."""
        hp = self.hparams
        step = decoder_only_step(self.network, window=hp.max_len)
        ids = sample(step, batch["tokens"], hp.max_new_tokens, EOS_ID, PAD_ID, hp.temperature, hp.top_k, hp.top_p)
        tokenizer = self.trainer.datamodule.tokenizer
        continuations = PendingText(ids, EOS_ID, hp.max_new_tokens, lambda rows: decode_batch(tokenizer, rows))
        return {"index": batch["index"], "prediction": continuations}  # read at the end, by the PredictionWriter
