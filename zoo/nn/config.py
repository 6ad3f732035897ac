"""The knobs shared by every architecture, as one typed, validated dataclass."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from zoo.messages import add_synonyms, check_choice
from zoo.nn.attention import check_kv_heads
from zoo.nn.positional import ROPE_THETA
from zoo.registry import ACTIVATIONS, NORMS, POSITIONAL_ENCODINGS

NORM_POSITIONS = ["post", "pre"]
add_synonyms("model.norm_position", "pre", ("prenorm", "pre_norm", "pre_ln", "preln", "pre_layernorm"))
add_synonyms("model.norm_position", "post", ("postnorm", "post_norm", "post_ln", "postln", "post_layernorm"))


@dataclass
class TransformerConfig:
    """Width, depth-independent knobs and component choices of a Transformer.

    Args:
        d_model: ``D``, the model width (Vaswani et al. 2017: 512).
        n_heads: ``H``, attention heads (paper: 8); ``d_model`` must be divisible by it.
        d_ff: hidden width of the feed-forward network (paper: 2048).
        dropout: residual, embedding and attention dropout (paper: 0.1, section 5.4), and the FFN's hidden
            dropout unless ``activation_dropout`` is set.
        activation_dropout: dropout on the FFN's hidden layer (fairseq's ``activation_dropout``); ``None``
            means ``dropout`` (as ``torch.nn.Transformer``); 0 as in BERT and GPT-2, which skips its cost.
        attention_dropout: dropout on the attention weights (fairseq's ``attention_dropout``); ``None`` means
            ``dropout``; 0 as in Marian's opus-mt and Llama.
        activation: FFN activation, one of ``ACTIVATIONS.names()`` (paper: ``relu``).
        norm: normalisation, one of ``NORMS.names()`` (paper: ``layernorm``).
        norm_position: ``post`` (paper: x = Norm(x + Sublayer(x))) or ``pre`` (x = x + Sublayer(Norm(x)),
            with a final norm after each stack).
        pe: positional encoding, one of ``POSITIONAL_ENCODINGS.names()`` (paper: ``sinusoidal``).
        max_len: the longest sequence, in tokens, for ``pe=learned`` (other encodings extrapolate past it), and
            the positions a causal ``batchnorm`` keeps statistics for.
        scale_embedding: multiply token embeddings by sqrt(d_model) (paper, section 3.4).
        bias: biases in the attention and FFN projections and shifts in the norms (paper, GPT-2: yes;
            nanoGPT's ``bias=False``, PaLM (Chowdhery et al. 2022, section 2) and LLaMA: no, which is faster).
            Task heads (a classifier's output layer) keep their bias.
        vocab_multiple: pad the embedding and output matrices to a multiple of this many rows (nanoGPT pads
            GPT-2's 50257 to 50304 = 64 x 786: matmuls of aligned shapes run faster on GPUs). The padding rows
            are never looked up, their logits are cut off before any loss or decoder sees them, and
            :func:`zoo.nn.count_parameters` leaves them out. 1 (default): no padding.
        n_kv_heads: ``H_kv``, the key/value heads of attention; ``None`` (default): ``n_heads``, multi-head
            attention; 1: multi-query attention (Shazeer 2019); between: grouped-query attention (Ainslie et al.
            2023), as Llama 2 70B and later. It must divide ``n_heads``; the key/value cache of incremental
            decoding shrinks by ``n_heads / n_kv_heads`` (docs/performance.md).
        norm_eps: the epsilon of every norm (added to the variance or mean square): 1e-5 (default, PyTorch's
            and GPT-2's), BERT's 1e-12, Llama's 1e-6 (``layer_norm_eps``, ``rms_norm_eps`` of their configs).
        token_types: rows of a learned token-type (segment) embedding added to the token embeddings, BERT's
            sentence A/B embedding (Devlin et al. 2019, section 3, Figure 2); every token is of type 0 unless
            the caller passes types. 0 (default): none.
        embedding_norm: a LayerNorm (``norm_eps``, a shift unless ``bias`` is false) on the sum of the
            embeddings, before dropout, as BERT (Devlin et al. 2019; Hugging Face's ``BertEmbeddings.LayerNorm``).
        output_bias: a learned bias on the vocabulary logits, initialised to zero (Marian's
            ``final_logits_bias``, Junczys-Dowmunt et al. 2018); ``false`` (default): none, as the paper.
        rope_theta: the base of rotary angles for ``pe=rope``, pos * theta^(-2i / d_head) (Su et al. 2021, eq. 34):
            10000 (default, and Llama 2's), Llama 3's 500000 (``rope_theta`` of their configs); other encodings
            do not read it.

    Raises:
        ValueError: naming the field, the value and what is valid, for an unknown component name,
            ``d_model`` not divisible by ``n_heads``, a non-positive size or a dropout outside [0, 1).

    Example:
        >>> TransformerConfig(d_model=64, n_heads=3)
        Traceback (most recent call last):
        ...
        ValueError: model.d_model=64 is not divisible by model.n_heads=3; pick n_heads among the divisors of d_model
    """

    d_model: int = 512
    n_heads: int = 8
    d_ff: int = 2048
    dropout: float = 0.1
    activation_dropout: float | None = None
    attention_dropout: float | None = None
    activation: str = "relu"
    norm: str = "layernorm"
    norm_position: str = "post"
    pe: str = "sinusoidal"
    max_len: int = 1024
    scale_embedding: bool = True
    bias: bool = True
    vocab_multiple: int = 1
    n_kv_heads: int | None = None
    norm_eps: float = 1e-5
    token_types: int = 0
    embedding_norm: bool = False
    output_bias: bool = False
    rope_theta: float = ROPE_THETA

    @classmethod
    def field_names(cls) -> list[str]:
        """The knobs, in declaration order: the flat ``model.*`` fields every task has."""
        return [field.name for field in fields(cls)]

    @classmethod
    def from_knobs(cls, knobs: Mapping) -> TransformerConfig:
        """The config of the knobs in ``knobs`` (a task's hyperparameters; other keys are ignored)."""
        return cls(**{name: knobs[name] for name in cls.field_names() if name in knobs})

    def __post_init__(self) -> None:
        ACTIVATIONS.check(self.activation)
        NORMS.check(self.norm)
        POSITIONAL_ENCODINGS.check(self.pe)
        check_choice("model.norm_position", self.norm_position, NORM_POSITIONS)
        for field in ("d_model", "n_heads", "d_ff", "max_len", "vocab_multiple"):
            value = getattr(self, field)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"model.{field}={value!r} is not valid; it must be a positive integer")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"model.d_model={self.d_model} is not divisible by model.n_heads={self.n_heads}; "
                f"pick n_heads among the divisors of d_model"
            )
        for field in REGULARISATION_KNOBS:
            value = getattr(self, field)
            if value is not None and not 0.0 <= value < 1.0:
                raise ValueError(f"model.{field}={value!r} is not valid; it must be in [0, 1)")
        self._check_weight_knobs()

    def _check_weight_knobs(self) -> None:
        """The knobs of checkpoints from other code bases: key/value heads, the norms' epsilon, rope's base, token
        types."""
        if self.n_kv_heads is not None:
            check_kv_heads(self.n_heads, self.n_kv_heads)
        if isinstance(self.norm_eps, bool) or not isinstance(self.norm_eps, (int, float)) or not self.norm_eps > 0:
            raise ValueError(f"model.norm_eps={self.norm_eps!r} is not valid; it must be a positive number (1e-5)")
        if (
            isinstance(self.rope_theta, bool)
            or not isinstance(self.rope_theta, (int, float))
            or not self.rope_theta > 1
        ):
            raise ValueError(
                f"model.rope_theta={self.rope_theta!r} is not valid; it must be a number above 1 "
                "(10000, Llama 3's 500000)"
            )
        if isinstance(self.token_types, bool) or not isinstance(self.token_types, int) or self.token_types < 0:
            raise ValueError(f"model.token_types={self.token_types!r} is not valid; it must be an integer >= 0")

    @property
    def kv_heads(self) -> int:
        """``H_kv``: ``n_kv_heads``, or ``n_heads`` when unset."""
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    def padded_vocab(self, vocab_size: int) -> int:
        """``vocab_size`` rounded up to a multiple of ``vocab_multiple``."""
        return -(-vocab_size // self.vocab_multiple) * self.vocab_multiple

    @property
    def ffn_dropout(self) -> float:
        """The dropout of the FFN's hidden layer: ``activation_dropout``, or ``dropout`` when unset."""
        return self.dropout if self.activation_dropout is None else self.activation_dropout

    @property
    def attn_dropout(self) -> float:
        """The dropout of the attention weights: ``attention_dropout``, or ``dropout`` when unset."""
        return self.dropout if self.attention_dropout is None else self.attention_dropout


# The knobs that say what the trained network computes (a checkpoint is evaluated or resumed with the same ones);
# dropout only regularises training.
REGULARISATION_KNOBS = ("dropout", "activation_dropout", "attention_dropout")
ARCHITECTURE_KNOBS = tuple(name for name in TransformerConfig.field_names() if name not in REGULARISATION_KNOBS)


def minimum_parameters(config: TransformerConfig, num_layers: int, vocab_size: int) -> int:
    """A lower bound of the parameters of a stack of ``num_layers`` layers over ``vocab_size`` tokens, from
    the sizes alone (no tensor made): each layer has at least its attention's four ``D x D`` projections and
    its feed-forward network's two ``D x d_ff`` matrices, and the embedding ``V x D`` (Vaswani et al. 2017,
    sections 3.2.2 and 3.3); with ``n_kv_heads`` below ``n_heads``, W^K and W^V are ``D_kv x D``.

    Example:
        >>> minimum_parameters(TransformerConfig(d_model=512, d_ff=2048), 12, 37000)  # the paper's base: 65M
        56692736
    """
    d, d_ff, d_kv = config.d_model, config.d_ff, config.d_model // config.n_heads * config.kv_heads
    return num_layers * (2 * d * d + 2 * d * d_kv + 2 * d * d_ff) + vocab_size * d
