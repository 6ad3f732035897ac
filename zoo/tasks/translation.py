"""Translation with the encoder-decoder Transformer (Vaswani et al. 2017) or a recurrent encoder-decoder
(``model.architecture=rnn``: Sutskever et al. 2014, Cho et al. 2014, Bahdanau et al. 2015, Luong et al. 2015)."""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from torch import Tensor

from zoo.data.detokenize import decode_batch
from zoo.data.tokenizer import BOS_ID, EOS_ID, PAD_ID
from zoo.data.translation import TranslationDataModule
from zoo.decoding import Hypothesis, greedy_decode, longest, max_lengths, search_translations, translate_ids
from zoo.decoding.settings import check_decoder_settings
from zoo.messages import check_at_least, check_between
from zoo.nn import EncoderDecoder
from zoo.nn.recurrent import RecurrentEncoderDecoder
from zoo.registry import RNN_ATTENTIONS
from zoo.tasks.base import TaskModule
from zoo.tasks.corpus_scores import CorpusScores
from zoo.tasks.metric_states import count_metric, sum_metric
from zoo.tasks.pending_text import PendingText
from zoo.tasks.recurrence import position_limit

RnnAttention = Literal[tuple(RNN_ATTENTIONS.names())]  # model.rnn_attention's names, as a type


class TranslationTask(TaskModule):
    """Label-smoothed cross-entropy training (section 5.4); validation loss, perplexity, and BLEU of the
    configured decoder (greedy by default, beam search with ``beam_size > 1``). Validation and test BLEU are
    the same computation: sacreBLEU's corpus BLEU with its defaults (:class:`zoo.tasks.corpus_scores.CorpusScores`);
    ``test`` adds lower-cased BLEU and chrF, and records each BLEU's signature.

    Args:
        num_encoder_layers: encoder depth (paper: 6).
        num_decoder_layers: decoder depth (paper: 6).
        tie_embeddings: share the target embedding and the output projection (section 3.4).
        share_embeddings: one embedding for source and target (the data module's joint vocabulary).
        label_smoothing: epsilon_ls of section 5.4 (paper: 0.1).
        bleu_batches: decode at most this many validation batches for BLEU (``None``: all of them); ``test``
            decodes every batch, so that its BLEU is the split's.
        beam_size: hypotheses kept per sentence when decoding for BLEU (1: greedy, the fastest; the paper: 4).
        length_penalty: alpha of the GNMT length penalty in beam search (Wu et al. 2016, eq. 14; the paper:
            0.6).
        max_len_a: a hypothesis has at most ``max_len_a * source length + max_len_b`` tokens (fairseq's
            ``--max-len-a/b``; the paper: source length + 50).
        max_len_b: see ``max_len_a``.
        rnn_attention: with ``model.architecture=rnn``: ``none`` (Sutskever et al. 2014), ``context`` (Cho et al.
            2014), ``additive`` (Bahdanau et al. 2015), ``dot``, ``general``, ``concat`` (Luong et al. 2015).
        input_feeding: feed Luong et al.'s attentional vector into the next step (section 3.3; dot, general and
            concat only).
        reverse_source: with ``model.architecture=rnn``, the encoder reads each source sentence backwards, its end
            token kept last (Sutskever et al. 2014, section 3.3: 25.9 -> 30.6 BLEU); its states, and so the
            alignments ``attention`` draws, stay in reading order.
        teacher_forcing: the probability that a recurrent decoder's training step reads the reference token
            rather than its own previous prediction (1: always, the default; bentrevett's anchors: 0.5).
        **kwargs: the knobs of :class:`zoo.tasks.base.TaskModule`.
    """

    monitor, monitor_mode, short_name = "val_bleu", "max", "ed"
    evaluation_metrics = ("loss", "ppl", "bleu", "exact_match")
    data_module = TranslationDataModule
    decoded_metrics = ("bleu", "chrf", "exact_match", "bleu_lowercase")  # test only: chrf, bleu_lowercase
    architecture = (
        *TaskModule.architecture,
        "num_encoder_layers",
        "num_decoder_layers",
        "tie_embeddings",
        "share_embeddings",
        "rnn_attention",
        "input_feeding",
        "reverse_source",
    )

    def __init__(
        self,
        num_encoder_layers: int = 3,
        num_decoder_layers: int = 3,
        tie_embeddings: bool = True,
        share_embeddings: bool = True,
        label_smoothing: float = 0.1,
        bleu_batches: int | None = None,
        beam_size: int = 1,
        length_penalty: float = 0.6,
        max_len_a: float = 1.0,
        max_len_b: int = 20,
        rnn_attention: RnnAttention = "additive",
        input_feeding: bool = False,
        reverse_source: bool = False,
        teacher_forcing: float = 1.0,
        **kwargs,
    ) -> None:
        check_between("model.label_smoothing", label_smoothing, 0.0, 1.0)
        check_at_least("model.num_encoder_layers", num_encoder_layers, 1)
        check_at_least("model.num_decoder_layers", num_decoder_layers, 1)
        check_at_least("model.bleu_batches", bleu_batches, 1, optional=True)
        check_at_least("model.beam_size", beam_size, 1)
        check_decoder_settings(beam_size, length_penalty, max_len_a, max_len_b, prefix="model.")
        super().__init__(**kwargs)
        self.corpus = {stage: CorpusScores() for stage in ("val", "test")}
        self.metrics = torch.nn.ModuleDict(
            {stage: torch.nn.ModuleDict({"nll": sum_metric(), "tokens": count_metric()}) for stage in ("val", "test")}
        )

    @property
    def bleu_signatures(self) -> dict[str, str]:
        """sacreBLEU's signatures of the last test BLEUs by metric (``test_bleu``, ``test_bleu_lowercase``; empty
        before a test), recorded beside them."""
        return {f"test_{score}": signature for score, signature in self.corpus["test"].signatures.items()}

    def build_network(self) -> EncoderDecoder | RecurrentEncoderDecoder:
        hp = self.hparams
        if self.recurrent is not None:
            layers = (hp.num_encoder_layers, hp.num_decoder_layers)
            return RecurrentEncoderDecoder(
                self.recurrent, hp.vocab_size, hp.vocab_size, *layers, hp.share_embeddings, PAD_ID, hp.teacher_forcing
            )
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
        return self.call_network(src, tgt_in, src_padding_mask, tgt_padding_mask)

    def _token_losses(self, batch: dict, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """The summed loss over real target tokens (``tgt_out`` holds ``F.cross_entropy``'s ignore index at
        padding) and their number."""
        logits = self(batch["src"], batch["tgt_in"], batch["src_padding_mask"], batch["tgt_padding_mask"])
        loss = F.cross_entropy(
            logits.flatten(0, 1).float(), batch["tgt_out"].flatten(), label_smoothing=label_smoothing, reduction="sum"
        )
        return loss, (~batch["tgt_padding_mask"]).sum()

    def training_loss(self, batch: dict) -> tuple[Tensor, Tensor]:
        loss, tokens = self._token_losses(batch, self.hparams.label_smoothing)
        return loss / tokens, tokens

    def hypotheses(
        self,
        src: Tensor,
        src_padding_mask: Tensor,
        beam_size: int | None = None,
        length_penalty: float | None = None,
        n_best: int = 1,
        max_len_a: float | None = None,
        max_len_b: int | None = None,
    ) -> list[list[Hypothesis]]:
        """The ``n_best`` translations of each of ``(B, S)`` source ids (``src_padding_mask`` ``(B, S)``, ``True``
        at padding), best first, as token ids; every setting left ``None`` is the model's own
        (``model.beam_size``, ...)."""
        hp = self.hparams
        limit = max_lengths(src_padding_mask, *self._length_limit(max_len_a, max_len_b))
        beam_size = hp.beam_size if beam_size is None else beam_size
        alpha = hp.length_penalty if length_penalty is None else length_penalty
        mask = src_padding_mask
        return translate_ids(self.network, src, mask, BOS_ID, EOS_ID, PAD_ID, limit, beam_size, alpha, n_best)

    def evaluation_settings(self, stage: str) -> tuple[str, ...]:
        """The decoder of BLEU, chrF, exact match and predictions; in validation also how many batches are
        decoded."""
        decoder = ("beam_size", "length_penalty", "max_len_a", "max_len_b")
        return (*decoder, "bleu_batches") if stage == "val" else decoder

    def _length_limit(self, max_len_a: float | None = None, max_len_b: int | None = None) -> tuple:
        """``(max_len_a, max_len_b, positions)``: the model's own where ``None``, and learned positions' limit."""
        hp = self.hparams
        a, b = hp.max_len_a if max_len_a is None else max_len_a, hp.max_len_b if max_len_b is None else max_len_b
        return a, b, position_limit(hp)

    def pending_translations(self, src: Tensor, src_padding_mask: Tensor) -> PendingText:
        """:meth:`translate`, but the ids stay on the device (:class:`PendingText`, read when the evaluation or
        prediction ends), so that no batch waits for the device to read them."""
        hp, limits = self.hparams, self._length_limit()
        limit, bound = max_lengths(src_padding_mask, *limits), longest(src.shape[1], *limits)
        if hp.beam_size > 1:
            found = search_translations(
                self.network, src, src_padding_mask, BOS_ID, EOS_ID, limit, hp.beam_size, hp.length_penalty,
                max_steps=bound,
            )  # fmt: skip
            ids = found.ids[:, 0]
        else:
            ids = greedy_decode(self.network, src, src_padding_mask, BOS_ID, EOS_ID, PAD_ID, limit, max_steps=bound)
        tokenizer = self.trainer.datamodule.target_tokenizer
        return PendingText(ids, EOS_ID, limit, lambda rows: decode_batch(tokenizer, rows))

    def translate(self, src: Tensor, src_padding_mask: Tensor) -> list[str]:
        """The translations of ``(B, S)`` source ids (``src_padding_mask`` ``(B, S)``, ``True`` at padding) by the
        configured decoder, detokenised."""
        best = [found[0].tokens for found in self.hypotheses(src, src_padding_mask)]
        return decode_batch(self.trainer.datamodule.target_tokenizer, best)

    def check_settings(self, datamodule) -> None:
        super().check_settings(datamodule)
        if self.hparams.share_embeddings and getattr(datamodule, "separate_vocabularies", False):
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
        if stage == "test" or limit is None or batch_idx < limit:
            found = self.pending_translations(batch["src"], batch["src_padding_mask"])
            self.corpus[stage].update(found, batch["tgt_text"])

    def log_stage(self, stage: str) -> None:
        metrics = self.metrics[stage]
        loss = metrics["nll"].compute() / metrics["tokens"].compute()
        self.log(f"{stage}_loss", loss, prog_bar=True)
        self.log(f"{stage}_ppl", torch.exp(loss))
        if len(self.corpus[stage]):
            scores = self.corpus[stage].compute()  # all over every rank's text
            self.log(f"{stage}_bleu", scores.bleu, prog_bar=True, sync_dist=False)
            if stage == "test":
                self.log("test_chrf", scores.chrf, sync_dist=False)
                self.log("test_bleu_lowercase", scores.bleu_lowercase, sync_dist=False)
            self.log(f"{stage}_exact_match", scores.exact_match, sync_dist=False)
        for metric in metrics.values():
            metric.reset()

    def predict_step(self, batch: dict, batch_idx: int) -> dict:
        """The translation of each source: ``{"index": (B,), "prediction": B strings}`` (greedy search's still on
        the device, :class:`PendingText`: :class:`zoo.training.predictions.PredictionWriter` reads them at the end)."""
        found = self.pending_translations(batch["src"], batch["src_padding_mask"])
        return {"index": batch["index"], "prediction": found}
