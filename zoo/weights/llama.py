"""Llama (Touvron et al. 2023; Hugging Face's ``LlamaForCausalLM``): a pre-norm decoder with RMSNorm, SwiGLU,
rotary embeddings, no biases, and grouped-query attention where ``num_key_value_heads`` is below
``num_attention_heads`` (Llama 2 70B, Llama 3). Hugging Face's rotary layout pairs channel ``i`` with
``i + d_head / 2``; the rows of W^Q and W^K are permuted to zoo's pairs ``(2i, 2i + 1)`` (and back on export)."""

from __future__ import annotations

from zoo.nn.positional import ROPE_THETA
from zoo.weights.errors import WeightsError
from zoo.weights.family import COMMON, Family, attention_dropout, require, special_ids
from zoo.weights.rules import Rule, linear, rotary_layout, stacked


def rope_theta(hf: dict) -> float:
    """The base of the rotary angles (``model.rope_theta``), from ``rope_theta`` or ``rope_parameters``.

    Raises:
        WeightsError: for a rotary scaling zoo does not have (Llama 3.1's ``llama3``, ``linear``, ``dynamic``,
            ``yarn``).
    """
    rope = hf.get("rope_parameters") or {
        "rope_theta": hf.get("rope_theta", ROPE_THETA),
        **(hf.get("rope_scaling") or {}),
    }
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind != "default":
        raise WeightsError(f"config.json's rope_type={kind!r} has no zoo counterpart (zoo supports 'default')")
    return float(rope.get("rope_theta", ROPE_THETA))


class Llama(Family):
    model_type, backbone, architecture = "llama", "decoder_only", "LlamaForCausalLM"
    prefix = "model."  # of the backbone's parameters in the model with a head
    aliases = {"embed_tokens.weight": ("lm_head.weight",)}  # tied (small Llamas)
    buffers = ("rotary_emb.inv_freq",)
    heads = ("score.",)  # LlamaForSequenceClassification's
    fixed = {
        **{name: value for name, value in COMMON.items() if name != "n_kv_heads"},
        "norm": "rmsnorm",
        "norm_position": "pre",
        "pe": "rope",
        "scale_embedding": False,
        "bias": False,
    }
    activations = ("swiglu",)

    def knobs(self, hf: dict) -> dict:
        require(hf, "hidden_act", ("silu",), "silu")
        for key in ("attention_bias", "mlp_bias"):
            require(hf, key, (False,), False)
        require(hf, "pretraining_tp", (1, None), 1)
        d_model, heads = hf["hidden_size"], hf["num_attention_heads"]
        require(hf, "head_dim", (None, d_model // heads))
        kv_heads = hf.get("num_key_value_heads") or heads
        return {
            **self.fixed,
            **special_ids(hf),
            "activation": "swiglu",
            "d_model": d_model,
            "n_heads": heads,
            "n_kv_heads": None if kv_heads == heads else kv_heads,
            "d_ff": hf["intermediate_size"],
            "num_layers": hf["num_hidden_layers"],
            "max_len": hf.get("max_position_embeddings", 2048),
            "norm_eps": hf.get("rms_norm_eps", 1e-6),
            "rope_theta": rope_theta(hf),
            "dropout": 0.0,  # Llama's only dropout is on its attention weights
            "activation_dropout": 0.0,
            "attention_dropout": hf.get("attention_dropout", 0.0),
            "tie_embeddings": bool(hf.get("tie_word_embeddings", False)),
            "vocab_size": hf["vocab_size"],
        }

    def rules(self, knobs: dict) -> list[Rule]:
        d_model, heads, d_ff = knobs["d_model"], knobs["n_heads"], knobs["d_ff"]
        kv_heads, d_head = knobs["n_kv_heads"] or heads, d_model // heads
        rotary = (rotary_layout(heads, d_head), rotary_layout(kv_heads, d_head), (lambda t: t, lambda t: t))
        rules = [Rule("embed.tokens.weight", ("embed_tokens.weight",)), *linear("decoder.final_norm", "norm", False)]
        if not knobs["tie_embeddings"]:
            rules.append(Rule("output.linear.weight", ("lm_head.weight",)))
        for i in range(knobs["num_layers"]):
            zoo, hf = f"decoder.layers.{i}.", f"layers.{i}."
            attention = [f"{hf}self_attn.{name}_proj" for name in "qkv"]
            sizes = (d_model, kv_heads * d_head, kv_heads * d_head)
            rules += stacked(f"{zoo}self_attn.in_proj", attention, sizes, False, rotary)
            rules += linear(f"{zoo}self_attn.out_proj", f"{hf}self_attn.o_proj", False)
            rules += stacked(f"{zoo}ffn.linear1", [f"{hf}mlp.gate_proj", f"{hf}mlp.up_proj"], (d_ff, d_ff), False)
            rules += linear(f"{zoo}ffn.linear2", f"{hf}mlp.down_proj", False)
            rules += linear(f"{zoo}self_attn_norm", f"{hf}input_layernorm", False)
            rules += linear(f"{zoo}ffn_norm", f"{hf}post_attention_layernorm", False)
        return rules

    def hf_config(self, knobs: dict) -> dict:
        return {
            "model_type": "llama",
            "architectures": [self.architecture],
            "hidden_size": knobs["d_model"],
            "num_attention_heads": knobs["n_heads"],
            "num_key_value_heads": knobs["n_kv_heads"] or knobs["n_heads"],
            "intermediate_size": knobs["d_ff"],
            "num_hidden_layers": knobs["num_layers"],
            "max_position_embeddings": knobs["max_len"],
            "rms_norm_eps": knobs["norm_eps"],
            "hidden_act": "silu",
            "attention_bias": False,
            "mlp_bias": False,
            "rope_theta": knobs["rope_theta"],
            "attention_dropout": attention_dropout(knobs),
            "tie_word_embeddings": knobs["tie_embeddings"],
            "vocab_size": knobs["vocab_size"],
            "bos_token_id": knobs.get("bos_id"),
            "eos_token_id": knobs.get("eos_id"),
            "pad_token_id": knobs.get("pad_id"),
        }
