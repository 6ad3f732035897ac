"""Translation with the encoder-decoder Transformer (Vaswani et al. 2017)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor
from torchmetrics import MeanMetric, SumMetric
from torchmetrics.text import SacreBLEUScore

from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.decoding import greedy_decode, strip_after_eos
from zoo.nn import EncoderDecoder
from zoo.nn.registry import check_at_least, check_between
from zoo.tasks.base import TaskModule


class TranslationTask(TaskModule):
    """Label-smoothed cross-entropy training (section 5.4); validation loss, perplexity, and BLEU
    (sacreBLEU's 13a tokenisation on detokenised text) with batched greedy decoding.

    Args:
        num_encoder_layers: encoder depth (paper: 6).
        num_decoder_layers: decoder depth (paper: 6).
        tie_embeddings: share the target embedding and the output projection (section 3.4).
        share_embeddings: one embedding for source and target (the data module's joint vocabulary).
        label_smoothing: epsilon_ls of section 5.4 (paper: 0.1).
        bleu_batches: decode at most this many validation batches for BLEU (``None``: all of them).
        max_decode_extra: a hypothesis may be this many tokens longer than its source.
        **kwargs: the knobs of :class:`zoo.tasks.base.TaskModule`.
    """

    monitor, monitor_mode, short_name = "val_bleu", "max", "ed"

    def __init__(
        self,
        num_encoder_layers: int = 3,
        num_decoder_layers: int = 3,
        tie_embeddings: bool = True,
        share_embeddings: bool = True,
        label_smoothing: float = 0.1,
        bleu_batches: int | None = None,
        max_decode_extra: int = 20,
        **kwargs,
    ) -> None:
        check_between("model.label_smoothing", label_smoothing, 0.0, 1.0)
        check_at_least("model.num_encoder_layers", num_encoder_layers, 1)
        check_at_least("model.num_decoder_layers", num_decoder_layers, 1)
        check_at_least("model.bleu_batches", bleu_batches, 1, optional=True)
        check_at_least("model.max_decode_extra", max_decode_extra, 0)
        super().__init__(**kwargs)
        self.metrics = torch.nn.ModuleDict(
            {
                stage: torch.nn.ModuleDict(
                    {"nll": SumMetric(), "tokens": SumMetric(), "bleu": SacreBLEUScore(), "exact": MeanMetric()}
                )
                for stage in ("val", "test")
            }
        )

    def build_network(self) -> EncoderDecoder:
        hp = self.hparams
        return EncoderDecoder(
            self.config,
            hp.vocab_size,
            hp.vocab_size,
            hp.num_encoder_layers,
            hp.num_decoder_layers,
            hp.tie_embeddings,
            hp.share_embeddings,
            PAD_ID,
        )

    def forward(
        self,
        src: Tensor,
        tgt_in: Tensor,
        src_padding_mask: Tensor | None = None,
        tgt_padding_mask: Tensor | None = None,
    ) -> Tensor:
        """``(B, S)`` source and ``(B, T)`` shifted target ids, with their padding masks (``True`` at padding;
        ``None``: no padding) -> ``(B, T, V)`` logits."""
        return self.network(src, tgt_in, src_padding_mask, tgt_padding_mask)

    def _token_losses(self, batch: dict, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """The summed loss over real target tokens (``tgt_out`` holds ``F.cross_entropy``'s ignore index at
        padding) and their number."""
        logits = self(batch["src"], batch["tgt_in"], batch["src_padding_mask"], batch["tgt_padding_mask"])
        loss = F.cross_entropy(
            logits.flatten(0, 1), batch["tgt_out"].flatten(), label_smoothing=label_smoothing, reduction="sum"
        )
        return loss, (~batch["tgt_padding_mask"]).sum()

    def training_loss(self, batch: dict) -> tuple[Tensor, int]:
        loss, tokens = self._token_losses(batch, self.hparams.label_smoothing)
        return loss / tokens, int(tokens)

    def translate(self, src: Tensor, src_padding_mask: Tensor | None = None) -> list[str]:
        """Greedy translations of ``(B, S)`` source ids (``src_padding_mask`` ``(B, S)``, ``True`` at padding),
        detokenised."""
        limit = src.shape[1] + self.hparams.max_decode_extra
        if self.hparams.pe == "learned":
            limit = min(limit, self.hparams.max_len - 1)
        ids = greedy_decode(self.network, src, src_padding_mask, BOS_ID, EOS_ID, PAD_ID, limit)
        return self.trainer.datamodule.target_tokenizer.decode_batch(strip_after_eos(ids, EOS_ID))

    def check_data(self, datamodule) -> None:
        super().check_data(datamodule)
        if self.hparams.share_embeddings and not getattr(datamodule, "joint_vocabulary", True):
            raise ValueError(
                "model.share_embeddings=true needs one vocabulary, but data.joint_vocabulary=false; "
                "set --model.share_embeddings=false or --data.joint_vocabulary=true"
            )

    def evaluate(self, stage: str, batch: dict, batch_idx: int) -> None:
        metrics = self.metrics[stage]
        nll, tokens = self._token_losses(batch, 0.0)
        metrics["nll"].update(nll)
        metrics["tokens"].update(tokens)
        limit = self.hparams.bleu_batches
        if limit is None or batch_idx < limit:
            hypotheses = self.translate(batch["src"], batch["src_padding_mask"])
            references = batch["tgt_text"]
            metrics["bleu"].update(hypotheses, [[r] for r in references])
            metrics["exact"].update(
                torch.tensor([h.strip() == r.strip() for h, r in zip(hypotheses, references, strict=True)]).float()
            )

    def log_stage(self, stage: str) -> None:
        metrics = self.metrics[stage]
        loss = metrics["nll"].compute() / metrics["tokens"].compute()
        self.log(f"{stage}_loss", loss, prog_bar=True)
        self.log(f"{stage}_ppl", torch.exp(loss))
        if metrics["exact"].update_called:
            self.log(f"{stage}_bleu", metrics["bleu"].compute() * 100, prog_bar=True)
            self.log(f"{stage}_exact_match", metrics["exact"].compute())
        for metric in metrics.values():
            metric.reset()

    def predict_step(self, batch: dict, batch_idx: int) -> dict:
        """The translation of each source: ``{"index": (B,), "prediction": B strings}``."""
        return {"index": batch["index"], "prediction": self.translate(batch["src"], batch["src_padding_mask"])}
