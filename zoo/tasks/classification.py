"""Sentence classification with the encoder-only Transformer or a (bi)LSTM/GRU encoder (``model.architecture=rnn``;
Tai et al. 2015's recurrent baselines), its states pooled as ``model.pooling`` says."""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torchmetrics import MetricCollection
from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score

from zoo.data.classification import ClassificationDataModule
from zoo.data.tokenizer import PAD_ID
from zoo.messages import check_at_least
from zoo.nn import EncoderOnly, final_state_pooling
from zoo.nn.recurrent import RecurrentEncoderOnly
from zoo.registry import POOLINGS
from zoo.tasks.base import TaskModule
from zoo.tasks.metric_states import count_metric, sum_metric

Pooling = Literal[tuple(POOLINGS.names())]
Pooler = Literal["none", "tanh"]


def check_pooling(pooling: str, architecture: str) -> None:
    """Refuse a pooling that would feed the head the same vector for every sentence.

    Raises:
        ValueError: ``model.pooling=cls`` with ``model.architecture=rnn``: position 0 is the state after
            ``<bos>`` alone in a recurrent encoder's forward direction (the whole vector, unidirectional), so
            the head would read a constant there.
    """
    if architecture == "rnn" and pooling == "cls":
        raise ValueError(
            f"model.pooling={pooling!r} pools position 0, where a recurrent encoder's forward direction has read "
            f"only <bos> (the same vector for every sentence); use model.pooling=final (each direction's final "
            f"state) or mean"
        )


class ClassificationTask(TaskModule):
    """Cross-entropy on a pooled encoder state; accuracy and macro-F1 with torchmetrics.

    Args:
        num_layers: encoder depth.
        num_classes: the number of labels (checked against the data before training).
        pooling: ``mean`` (over real tokens), ``cls`` (the first token, BERT's ``[CLS]``; a Transformer only) or
            ``final`` (each direction's state after the whole sentence: a recurrent encoder's final states, a
            Transformer's last real token).
        pooler: what the pooled ``(B, D)`` vector goes through before the head: ``none``, or ``tanh``, a
            ``D x D`` linear layer and tanh (BERT's pooler, Devlin et al. 2019, section 3: what
            ``BertForSequenceClassification`` reads, imported with its weights by ``zoo import``).
        **kwargs: the knobs of :class:`zoo.tasks.base.TaskModule`.
    """

    monitor, monitor_mode, short_name = "val_acc", "max", "eo"
    evaluation_metrics = ("loss", "acc", "f1")
    data_module = ClassificationDataModule
    architecture = (*TaskModule.architecture, "num_layers", "num_classes", "pooling", "pooler")

    def __init__(
        self, num_layers: int = 4, num_classes: int = 2, pooling: Pooling = "mean", pooler: Pooler = "none", **kwargs
    ) -> None:
        POOLINGS.check(pooling)
        check_pooling(pooling, kwargs.get("architecture", "transformer"))
        check_at_least("model.num_layers", num_layers, 1)
        if pooler not in Pooler.__args__:
            raise ValueError(f"model.pooler={pooler!r} is not valid; choose from {', '.join(Pooler.__args__)}")
        if num_classes < 2:
            raise ValueError(f"model.num_classes={num_classes} is not valid; it must be at least 2")
        super().__init__(**kwargs)
        width = getattr(self.network, "output_size", self.hparams.d_model)  # a bidirectional RNN's: 2 x rnn_hidden
        self.pooler = nn.Sequential(nn.Linear(width, width), nn.Tanh()) if pooler == "tanh" else nn.Identity()
        self.head = nn.Sequential(nn.Dropout(self.hparams.dropout), nn.Linear(width, num_classes))
        self.metrics = nn.ModuleDict(
            {
                stage: MetricCollection(
                    {
                        "acc": MulticlassAccuracy(num_classes, average="micro"),
                        "f1": MulticlassF1Score(num_classes, average="macro"),
                    },
                    prefix=f"{stage}_",
                )
                for stage in ("val", "test")
            }
        )
        # the summed loss and the examples: torchmetrics' weighted mean reads back at every update (mean_metric)
        sums = {"nll": sum_metric, "examples": count_metric}
        self.losses = nn.ModuleDict({f"{stage}_{k}": sums[k]() for stage in ("val", "test") for k in sums})

    def build_network(self) -> EncoderOnly | RecurrentEncoderOnly:
        hp = self.hparams
        if self.recurrent is not None:
            return RecurrentEncoderOnly(self.recurrent, hp.vocab_size, hp.num_layers, PAD_ID)
        return EncoderOnly(self.config, hp.vocab_size, hp.num_layers, PAD_ID)

    def check_data(self, datamodule) -> None:
        super().check_data(datamodule)
        data_classes = getattr(datamodule, "num_classes", None)
        evaluated = getattr(datamodule, "tokenizers_given", False)  # a checkpoint on data that may lack a class
        if evaluated and data_classes is not None and data_classes > self.hparams.num_classes:
            raise ValueError(
                f"data.path={datamodule.path!r} has the label {data_classes - 1}, which this checkpoint cannot "
                f"predict: it was trained with model.num_classes={self.hparams.num_classes} (labels 0 ... "
                f"{self.hparams.num_classes - 1})"
            )
        if data_classes is not None and data_classes != self.hparams.num_classes and not evaluated:
            than = "smaller than" if data_classes > self.hparams.num_classes else "not"
            raise ValueError(
                f"model.num_classes={self.hparams.num_classes} is {than} the {data_classes} classes in the data "
                f"(labels 0 ... {data_classes - 1}); set --model.num_classes={data_classes}"
            )

    def forward(self, tokens: Tensor, padding_mask: Tensor | None = None) -> Tensor:
        """``(B, S)`` ids (starting with ``<bos>``) and their ``(B, S)`` padding mask (``True`` at padding;
        ``None``: no padding) -> ``(B, C)`` logits."""
        mask = torch.zeros_like(tokens, dtype=torch.bool) if padding_mask is None else padding_mask
        states = self.call_network(tokens, mask)
        if self.hparams.pooling == "final":
            pooled = final_state_pooling(states, mask, getattr(self.network, "directions", 1))
        else:
            pooled = POOLINGS.get(self.hparams.pooling)(states, mask)
        return self.head(self.pooler(pooled))

    def training_loss(self, batch: dict) -> tuple[Tensor, Tensor]:
        loss = F.cross_entropy(self(batch["tokens"], batch["padding_mask"]).float(), batch["labels"])
        return loss, (~batch["padding_mask"]).sum()

    def evaluate(self, stage: str, batch: dict, batch_idx: int) -> None:
        logits = self(batch["tokens"], batch["padding_mask"])
        labels = batch["labels"]
        self.losses[f"{stage}_nll"].update(F.cross_entropy(logits.float(), labels, reduction="sum"))
        self.losses[f"{stage}_examples"].update(torch.full((), labels.numel(), dtype=torch.long, device=labels.device))
        self.metrics[stage].update(logits, batch["labels"])

    def log_stage(self, stage: str) -> None:
        self.log(f"{stage}_loss", self.losses[f"{stage}_nll"].compute() / self.losses[f"{stage}_examples"].compute())
        self.log_dict(self.metrics[stage].compute(), prog_bar=True)
        for metric in (self.losses[f"{stage}_nll"], self.losses[f"{stage}_examples"], self.metrics[stage]):
            metric.reset()

    def predict_step(self, batch: dict, batch_idx: int) -> dict:
        """The predicted label of each example: ``{"index": (B,), "prediction": (B,) labels}``, left on the device
        (:class:`zoo.training.predictions.PredictionWriter` reads them all at the end)."""
        labels = self(batch["tokens"], batch["padding_mask"]).argmax(dim=-1)
        return {"index": batch["index"], "prediction": labels}


__all__ = ["ClassificationTask"]
