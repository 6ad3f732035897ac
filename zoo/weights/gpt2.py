"""GPT-2 (Radford et al. 2019; Hugging Face's ``GPT2LMHeadModel``): a pre-norm decoder with learned positions,
GELU's tanh approximation and Conv1D projections (weights stored ``(in, out)``)."""

from __future__ import annotations

from zoo.weights.family import COMMON, HF_ACTIVATIONS, Family, activation, attention_dropout, require, special_ids
from zoo.weights.rules import TRANSPOSE, Rule, linear


class GPT2(Family):
    model_type, backbone, architecture = "gpt2", "decoder_only", "GPT2LMHeadModel"
    prefix = "transformer."  # of the backbone's parameters in the model with a head
    aliases = {"wte.weight": ("lm_head.weight",)}
    buffers = (".attn.bias", ".attn.masked_bias")  # the causal masks older versions saved
    heads = ("score.",)  # GPT2ForSequenceClassification's
    fixed = {
        **COMMON,
        "norm": "layernorm",
        "norm_position": "pre",
        "pe": "learned",
        "scale_embedding": False,
        "bias": True,
        "tie_embeddings": True,
    }

    def knobs(self, hf: dict) -> dict:
        for key in ("scale_attn_by_inverse_layer_idx", "add_cross_attention"):
            require(hf, key, (False, None))
        require(hf, "scale_attn_weights", (True,), True)
        require(hf, "tie_word_embeddings", (True,), True)
        d_model = hf["n_embd"]
        return {
            **self.fixed,
            **special_ids(hf),
            "d_model": d_model,
            "n_heads": hf["n_head"],
            "d_ff": hf.get("n_inner") or 4 * d_model,
            "num_layers": hf["n_layer"],
            "max_len": hf["n_positions"],
            "norm_eps": hf.get("layer_norm_epsilon", 1e-5),
            "activation": activation(hf, "activation_function"),
            "dropout": hf.get("resid_pdrop", 0.1),
            "activation_dropout": 0.0,  # GPT-2's MLP has no dropout on its hidden layer
            "attention_dropout": hf.get("attn_pdrop", 0.1),
            "vocab_size": hf["vocab_size"],
        }

    def rules(self, knobs: dict) -> list[Rule]:
        rules = [Rule("embed.tokens.weight", ("wte.weight",)), Rule("embed.pe.table.weight", ("wpe.weight",))]
        rules += linear("decoder.final_norm", "ln_f")
        for i in range(knobs["num_layers"]):
            zoo, hf = f"decoder.layers.{i}.", f"h.{i}."
            rules += linear(f"{zoo}self_attn_norm", f"{hf}ln_1") + linear(f"{zoo}ffn_norm", f"{hf}ln_2")
            rules += linear(f"{zoo}self_attn.in_proj", f"{hf}attn.c_attn", transform=TRANSPOSE)
            rules += linear(f"{zoo}self_attn.out_proj", f"{hf}attn.c_proj", transform=TRANSPOSE)
            rules += linear(f"{zoo}ffn.linear1", f"{hf}mlp.c_fc", transform=TRANSPOSE)
            rules += linear(f"{zoo}ffn.linear2", f"{hf}mlp.c_proj", transform=TRANSPOSE)
        return rules

    def hf_config(self, knobs: dict) -> dict:
        return {
            "model_type": "gpt2",
            "architectures": [self.architecture],
            "n_embd": knobs["d_model"],
            "n_head": knobs["n_heads"],
            "n_inner": knobs["d_ff"],
            "n_layer": knobs["num_layers"],
            "n_positions": knobs["max_len"],
            "layer_norm_epsilon": knobs["norm_eps"],
            "activation_function": HF_ACTIVATIONS[knobs["activation"]],
            "vocab_size": knobs["vocab_size"],
            "resid_pdrop": knobs["dropout"],
            "embd_pdrop": knobs["dropout"],
            "attn_pdrop": attention_dropout(knobs),
            "bos_token_id": knobs.get("bos_id"),
            "eos_token_id": knobs.get("eos_id"),
            "pad_token_id": knobs.get("pad_id"),
            "tie_word_embeddings": True,
        }
