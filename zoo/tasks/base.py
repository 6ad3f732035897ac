"""The base of every task: the ablation knobs as flat fields, optimisation, and the logging shared by all."""

from __future__ import annotations

import time
from typing import Literal

import lightning.pytorch as pl
from torch import Tensor, nn

from zoo.nn import ARCHITECTURE_KNOBS, NORM_POSITIONS, TransformerConfig, count_parameters
from zoo.registry import ACTIVATIONS, ARCHITECTURES, NORMS, POSITIONAL_ENCODINGS, RNN_CELLS, SCHEDULES
from zoo.tasks.checkpoint_extras import CheckpointExtras
from zoo.tasks.compiling import CompiledNetwork
from zoo.tasks.data_checks import DataChecks
from zoo.tasks.gradients import clip_by_norm, step_gradient_norm
from zoo.tasks.metric_states import apply_keeping_metric_dtypes
from zoo.tasks.network_size import check_fits_in_memory
from zoo.tasks.optimizer import adamw_with_schedule, check_optimizer_knobs, plain_norm_clipping
from zoo.tasks.recurrence import recurrent_config
from zoo.tasks.train_tokens import TrainTokens

DEFAULT = TransformerConfig()  # the architecture knobs: its fields and defaults (tests/cli/test_knobs.py)
# The valid names of each string knob, as types: the CLI's parser checks them and --help lists them.
Activation, Norm = Literal[tuple(ACTIVATIONS.names())], Literal[tuple(NORMS.names())]
PositionalEncoding = Literal[tuple(POSITIONAL_ENCODINGS.names())]
Schedule, RnnCell = Literal[tuple(SCHEDULES.names())], Literal[tuple(RNN_CELLS.names())]
NormPosition, Architecture = Literal[tuple(NORM_POSITIONS)], Literal[tuple(ARCHITECTURES)]


class TaskModule(CheckpointExtras, DataChecks, pl.LightningModule):
    """Flat ablation knobs (``model.pe``, ``model.norm``, ...), AdamW with a warm-up schedule, and logging of
    train loss, learning rate, gradient norm, tokens per second and the parameter count.

    Subclasses build ``self.network`` in :meth:`build_network`, return ``(loss, tokens)`` from
    :meth:`training_loss`, and name the metric that picks the best checkpoint (``monitor``, ``monitor_mode``).
    Under every ``trainer.precision`` the losses are computed from float32 logits and the evaluation metrics
    keep float32 sums and int64 counts (``bf16-true`` casts the module to bfloat16:
    :mod:`zoo.tasks.metric_states`).

    Args:
        vocab_size: ``V``; filled in from the data module by the CLI.
        d_model: ``D``, the width of the residual stream (Vaswani et al. 2017: 512).
        n_heads: ``H``, attention heads; ``d_model`` must be divisible by it (Table 3, rows A).
        d_ff: the inner width of the feed-forward network (the paper: 2048).
        dropout: dropout on sublayer outputs, embeddings and attention weights (section 5.4: 0.1), and on the
            FFN's hidden layer unless ``activation_dropout`` says otherwise.
        activation_dropout: dropout on the FFN's hidden layer; ``None`` (default): ``dropout``, as
            ``torch.nn.Transformer``; ``0``: none, as BERT and GPT-2 (and a faster step on CPU).
        attention_dropout: dropout on the attention weights; ``None`` (default): ``dropout``.
        activation: the feed-forward activation (``swiglu``: Shazeer 2020).
        norm: the normalisation (``batchnorm`` masks padding and is causal-safe in decoders; ``powernorm``:
            Shen et al. 2020).
        norm_position: ``post`` (the paper, section 5.4) or ``pre`` (Xiong et al. 2020).
        pe: the positional encoding (section 3.5; ``rope``: Su et al. 2021; ``none``).
        max_len: the longest sequence, in tokens (the size of ``learned`` position tables).
        scale_embedding: multiply embeddings by sqrt(d_model) (section 3.4).
        bias: biases in the projections and shifts in the norms (the paper's); ``false`` as nanoGPT and PaLM.
        vocab_multiple: pad the embedding and output matrices to a multiple of this many rows (64: GPT-2's
            50257 to 50304, as nanoGPT, for faster GPU matmuls); the padding is never predicted, never in the
            loss, and left out of the logged ``parameters``.
        n_kv_heads: key/value heads; ``None``: ``n_heads`` (multi-head); 1: multi-query attention (Shazeer
            2019); between: grouped-query attention (Ainslie et al. 2023). It must divide ``n_heads``.
        norm_eps: the epsilon of every norm (BERT's 1e-12, Llama's 1e-6).
        token_types: rows of BERT's token-type embedding (0: none); every token is of type 0.
        embedding_norm: a LayerNorm on the embeddings before dropout (BERT).
        output_bias: a learned bias on the vocabulary logits (Marian's ``final_logits_bias``).
        rope_theta: the base of rotary angles for ``pe=rope`` (10000; Llama 3's 500000).
        lr: the peak learning rate.
        weight_decay: AdamW's decoupled weight decay (Loshchilov and Hutter 2019) on matrices only.
        betas: Adam's (beta1, beta2); the paper's (0.9, 0.98) (section 5.3).
        eps: Adam's epsilon; the paper's 1e-9.
        schedule: ``inverse_sqrt`` (eq. 3), ``cosine`` or ``constant``, each with linear warm-up.
        warmup_steps: warm-up length, in optimiser steps.
        min_lr_ratio: where ``cosine`` ends, as a fraction of ``lr``.
        compile: run the network through ``torch.compile`` (``nn.Module.compile``: the weights and checkpoints
            are the same as without it), one graph for training and one for evaluation whatever the batch
            shapes (:mod:`zoo.tasks.compiling`). Measured in docs/performance.md.
        architecture: ``transformer`` (self-attention) or ``rnn`` (torch's LSTM/GRU layers,
            :mod:`zoo.nn.recurrent`); the knobs of the other one do not apply (said and recorded by ``fit``).
        rnn_cell: ``lstm`` (Hochreiter and Schmidhuber 1997) or ``gru`` (Cho et al. 2014), for ``rnn``.
        rnn_hidden: the recurrent state's width per direction (``None``: ``d_model``, the embedding's width).
        bidirectional: a recurrent encoder reads both ways (Bahdanau et al. 2015, section 3.2).

    Raises:
        ValueError: for any bad knob, naming the field, the value and what is valid.
    """

    monitor = "val_loss"
    monitor_mode = "min"
    short_name = "task"
    # What fit logs: every task's training metrics, and its own evaluation metrics with a val_ (test_) prefix.
    training_metrics = ("train_loss", "lr", "tokens_per_sec", "grad_norm", "parameters", "train_tokens")
    evaluation_metrics: tuple[str, ...] = ("loss",)
    data_module: type | None = None  # the data module whose batches the task reads (subclasses too)

    def __init_subclass__(cls, **kwargs) -> None:
        """A task's ``monitor`` must be a metric it logs: checkpoints, sweeps and ``EarlyStopping`` are checked
        against :meth:`logged_metrics`, which reads ``evaluation_metrics``.

        Raises:
            TypeError: when the class is defined, naming what to add to ``evaluation_metrics``.
        """
        super().__init_subclass__(**kwargs)
        if cls.monitor not in cls.logged_metrics():
            name = cls.monitor.removeprefix("val_")
            raise TypeError(
                f"{cls.__name__}.monitor={cls.monitor!r} is not a metric it logs ({', '.join(cls.logged_metrics())}); "
                f"add {name!r} to its evaluation_metrics (now {cls.evaluation_metrics!r}), the metrics its "
                f"log_stage logs with a val_ (test_) prefix"
            )

    @classmethod
    def logged_metrics(cls) -> list[str]:
        """The metrics ``fit`` logs (training, then validation), e.g. for a sweep's ``metric.name``."""
        return [*cls.training_metrics, *(f"val_{name}" for name in cls.evaluation_metrics)]

    # The knobs a checkpoint is tied to (a resumed or evaluated run cannot change them); tasks add their own.
    architecture: tuple[str, ...] = (*ARCHITECTURE_KNOBS, "architecture", "rnn_cell", "rnn_hidden", "bidirectional")

    # The evaluation metrics that depend on evaluation_settings (a translation's BLEU on its decoder); the others
    # (a teacher-forced loss) do not, and keep their names when only those settings differ from the run's.
    decoded_metrics: tuple[str, ...] = ()

    def evaluation_settings(self, stage: str) -> tuple[str, ...]:
        """The knobs besides the weights that the ``stage`` (``"val"``, ``"test"``, ``"predict"``) metrics or
        predictions depend on, and that a ``validate``/``test``/``predict`` of a checkpoint may set otherwise
        than the run did (a translation's decoder): such an evaluation is recorded apart
        (:mod:`zoo.runs.partial_evaluations`), and such predictions are written to a file of their own. None by
        default."""
        return ()

    def __init__(
        self,
        vocab_size: int = 0,
        d_model: int = DEFAULT.d_model,
        n_heads: int = DEFAULT.n_heads,
        d_ff: int = DEFAULT.d_ff,
        dropout: float = DEFAULT.dropout,
        activation_dropout: float | None = DEFAULT.activation_dropout,
        attention_dropout: float | None = DEFAULT.attention_dropout,
        activation: Activation = DEFAULT.activation,
        norm: Norm = DEFAULT.norm,
        norm_position: NormPosition = DEFAULT.norm_position,
        pe: PositionalEncoding = DEFAULT.pe,
        max_len: int = DEFAULT.max_len,
        scale_embedding: bool = DEFAULT.scale_embedding,
        bias: bool = DEFAULT.bias,
        vocab_multiple: int = DEFAULT.vocab_multiple,
        n_kv_heads: int | None = DEFAULT.n_kv_heads,
        norm_eps: float = DEFAULT.norm_eps,
        token_types: int = DEFAULT.token_types,
        embedding_norm: bool = DEFAULT.embedding_norm,
        output_bias: bool = DEFAULT.output_bias,
        rope_theta: float = DEFAULT.rope_theta,
        lr: float = 5e-4,
        weight_decay: float = 0.0,
        betas: tuple[float, float] = (0.9, 0.98),
        eps: float = 1e-9,
        schedule: Schedule = "inverse_sqrt",
        warmup_steps: int = 4000,
        min_lr_ratio: float = 0.1,
        compile: bool = False,
        architecture: Architecture = "transformer",
        rnn_cell: RnnCell = "lstm",
        rnn_hidden: int | None = None,
        bidirectional: bool = True,
    ) -> None:
        super().__init__()
        self.save_hyperparameters(logger=False)  # the CLI logs the whole resolved config once
        self._build_network(compile)

    def _build_network(self, compile: bool) -> None:
        """Check the knobs, then build the network of ``model.architecture`` and start the counters."""
        check_optimizer_knobs(self.hparams)
        self.recurrent = recurrent_config(self.hparams)  # None for model.architecture=transformer
        self.config = None if self.recurrent is not None else TransformerConfig.from_knobs(self.hparams)
        check_fits_in_memory(self.config, self.hparams)
        self.network = self.build_network()
        self._start_counters(compile)

    def _start_counters(self, compile: bool) -> None:
        """The compiled network (``model.compile``), and the clock and the counters of the steps logged, empty."""
        self.compiled = CompiledNetwork(self.network) if compile else None
        self._clock: float | None = None
        self._step_metrics: dict[str, float | Tensor] = {}  # this step's lr, tokens/s, grad norm, until logged
        self._checkpoint_step: int | None = None
        self._train_tokens = TrainTokens()  # seen by fit, over all ranks; unknown after a checkpoint without it

    def build_network(self) -> nn.Module:
        raise NotImplementedError

    def call_network(self, *args: Tensor | None) -> Tensor:
        """``self.network(*args)``, through :class:`zoo.tasks.compiling.CompiledNetwork` under ``model.compile``."""
        return self.network(*args) if self.compiled is None else self.compiled(*args)

    def setup(self, stage: str) -> None:
        if self.compiled is not None:
            self.compiled.start_clock()

    def teardown(self, stage: str) -> None:
        if self.compiled is not None:
            self.compiled.stop_clock()

    def _apply(self, fn, recurse: bool = True):
        """``nn.Module``'s, with the evaluation metrics' states kept in their dtypes (float32 sums, int64
        counts) when the module is cast, as ``trainer.precision=bf16-true`` casts it
        (:mod:`zoo.tasks.metric_states`)."""
        return apply_keeping_metric_dtypes(self, lambda: super(TaskModule, self)._apply(fn, recurse))

    def training_loss(self, batch: dict) -> tuple[Tensor, Tensor]:
        """The training loss of a batch and the number of tokens it covered (a 0-dim integer tensor on the
        batch's device: reading it would make the host wait for the device every step)."""
        raise NotImplementedError

    def evaluate(self, stage: str, batch: dict, batch_idx: int) -> None:
        """Update the ``stage`` (``val`` or ``test``) metrics with one batch."""
        raise NotImplementedError

    def log_stage(self, stage: str) -> None:
        """Log the ``stage`` metrics accumulated over the epoch (synchronised across ranks), then reset them."""
        raise NotImplementedError

    def validation_step(self, batch: dict, batch_idx: int) -> None:
        self.evaluate("val", batch, batch_idx)

    def on_validation_epoch_end(self) -> None:
        self.log_stage("val")
        self._log_evaluated_step()

    def test_step(self, batch: dict, batch_idx: int) -> None:
        self.evaluate("test", batch, batch_idx)

    def on_test_epoch_end(self) -> None:
        self.log_stage("test")
        self._log_evaluated_step()

    def _log_evaluated_step(self) -> None:
        """Record evaluation metrics at the optimiser step of the weights evaluated: the current step in
        ``fit``, the checkpoint's step in ``validate``/``test`` (Lightning uses a metric named ``step`` as the
        step of the metrics logged with it)."""
        fitting = self.trainer.state.fn == "fit"
        step = self.global_step if fitting or self._checkpoint_step is None else self._checkpoint_step
        self.log("step", float(step), sync_dist=False)
        seen = self._train_tokens.read() if fitting else None
        if seen is not None:  # the training tokens seen by this evaluation (--at tokens=N)
            self.log("train_tokens", float(seen), sync_dist=False)

    # -- optimisation --------------------------------------------------------------------------
    def configure_optimizers(self):
        return adamw_with_schedule(self)

    # -- logging -------------------------------------------------------------------------------
    def on_train_start(self) -> None:
        parameters = count_parameters(self.network)
        for logger in self.loggers:
            logger.log_metrics({"parameters": parameters}, step=self.global_step)

    def training_step(self, batch: dict, batch_idx: int) -> Tensor:
        loss, tokens = self.training_loss(batch)
        # every step for callbacks that watch it, kept a tensor: the progress bar reads it at the steps that log
        self.log("train_loss", loss)
        self._train_tokens.add(tokens, self.trainer.world_size)  # as tokens_per_sec: ranks alike
        now = time.perf_counter()
        self._step_metrics = {"lr": self.optimizers().param_groups[0]["lr"]}
        if self._clock is not None:
            self._step_metrics["tokens_per_sec"] = tokens * self.trainer.world_size / (now - self._clock)
        self._clock = now
        return loss

    def on_train_batch_end(self, outputs, batch: dict, batch_idx: int) -> None:
        """Log ``lr``, ``tokens_per_sec`` and ``grad_norm`` on the steps whose metrics Lightning hands to the
        loggers: every ``log_every_n_steps``, and the step a run stops at (the callbacks, which run before this
        hook, have decided by now: the last step, ``max_time``, a non-finite loss). ``self.log`` costs about 0.3 ms
        a call on CPU (docs/performance.md), and on other steps nothing would read them. ``train_loss`` is logged
        every step (a tensor until a logger or the progress bar reads it)."""
        trainer = self.trainer
        if self._step_metrics and (trainer._logger_connector.should_update_logs or trainer.fast_dev_run):
            self.log_dict(self._step_metrics)
        self._step_metrics = {}

    def on_validation_end(self) -> None:
        self._clock = None  # validation time is not training time

    def on_before_optimizer_step(self, optimizer) -> None:
        norm = step_gradient_norm(optimizer, self.trainer.global_step)
        if norm is not None:
            self._step_metrics["grad_norm"] = norm

    def configure_gradient_clipping(
        self, optimizer, gradient_clip_val: float | None = None, gradient_clip_algorithm: str | None = None
    ) -> None:
        """Clip by norm with the step's gradient norm, computed once (:mod:`zoo.tasks.gradients`), where Lightning
        would call ``clip_grad_norm_`` on the optimiser's parameters itself; Lightning's own clipping otherwise
        (by value, and strategies that clip their own way, such as FSDP and DeepSpeed)."""
        if plain_norm_clipping(self.trainer, gradient_clip_val, gradient_clip_algorithm):
            clip_by_norm(optimizer, gradient_clip_val, self.trainer.global_step)
        else:
            super().configure_gradient_clipping(optimizer, gradient_clip_val, gradient_clip_algorithm)

