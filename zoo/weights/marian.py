"""Marian (Junczys-Dowmunt et al. 2018; Hugging Face's ``MarianMTModel``, Helsinki-NLP's opus-mt): a post-norm
encoder-decoder with shared embeddings scaled by sqrt(d_model), sinusoids laid out sines then cosines
(``pe=sinusoidal_concat``), SiLU (``swish``) and a bias on the final logits (``output_bias``)."""

from __future__ import annotations

from zoo.weights.errors import WeightsError
from zoo.weights.family import COMMON, HF_ACTIVATIONS, Family, activation, attention_dropout, require, special_ids
from zoo.weights.rules import ROW, Rule, linear, stacked


def same(hf: dict, first: str, second: str) -> object:
    """``hf[first]``, refused unless ``hf[second]`` equals it (zoo's encoder and decoder share the knob)."""
    if hf[first] != hf[second]:
        raise WeightsError(
            f"config.json's {first}={hf[first]!r} and {second}={hf[second]!r} differ; zoo's encoder and decoder "
            f"share one value"
        )
    return hf[first]


class Marian(Family):
    model_type, backbone, architecture = "marian", "encoder_decoder", "MarianMTModel"
    prefix = "model."  # of the backbone's parameters in the model with a head
    aliases = {"shared.weight": ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight")}
    buffers = ("embed_positions.weight",)  # fixed sinusoids, zoo's pe=sinusoidal_concat
    fixed = {
        **{name: value for name, value in COMMON.items() if name != "output_bias"},
        "output_bias": True,
        "norm_eps": 1e-5,  # torch.nn.LayerNorm's default, which Marian's layers keep
        "norm": "layernorm",
        "norm_position": "post",
        "pe": "sinusoidal_concat",
        "bias": True,
        "share_embeddings": True,
        "tie_embeddings": True,
    }

    def knobs(self, hf: dict) -> dict:
        require(hf, "share_encoder_decoder_embeddings", (True,), True)
        require(hf, "tie_word_embeddings", (True,), True)
        require(hf, "normalize_before", (False, None))
        return {
            **self.fixed,
            **special_ids(hf, "pad_token_id"),
            "bos_id": hf.get("decoder_start_token_id", hf.get("pad_token_id")),
            "d_model": hf["d_model"],
            "n_heads": same(hf, "encoder_attention_heads", "decoder_attention_heads"),
            "d_ff": same(hf, "encoder_ffn_dim", "decoder_ffn_dim"),
            "num_encoder_layers": hf["encoder_layers"],
            "num_decoder_layers": hf["decoder_layers"],
            "max_len": hf.get("max_position_embeddings", 512),
            "scale_embedding": bool(hf.get("scale_embedding", True)),
            "activation": activation(hf, "activation_function"),
            "dropout": hf.get("dropout", 0.1),
            "activation_dropout": hf.get("activation_dropout", 0.0),
            "attention_dropout": hf.get("attention_dropout", 0.0),
            "vocab_size": hf["vocab_size"],
        }

    def rules(self, knobs: dict) -> list[Rule]:
        d = knobs["d_model"]
        rules = [
            Rule("src_embed.tokens.weight", ("shared.weight",)),
            Rule("output.linear.bias", ("final_logits_bias",), (ROW,)),
        ]
        for stack, count in (("encoder", knobs["num_encoder_layers"]), ("decoder", knobs["num_decoder_layers"])):
            for i in range(count):
                zoo = hf = f"{stack}.layers.{i}."
                blocks = [("self_attn", "self_attn")] + ([("cross_attn", "encoder_attn")] if stack == "decoder" else [])
                for ours, theirs in blocks:
                    projections = [f"{hf}{theirs}.{name}_proj" for name in "qkv"]
                    rules += stacked(f"{zoo}{ours}.in_proj", projections, (d, d, d), True)
                    rules += linear(f"{zoo}{ours}.out_proj", f"{hf}{theirs}.out_proj")
                    rules += linear(f"{zoo}{ours}_norm", f"{hf}{theirs}_layer_norm")
                rules += linear(f"{zoo}ffn.linear1", f"{hf}fc1") + linear(f"{zoo}ffn.linear2", f"{hf}fc2")
                rules += linear(f"{zoo}ffn_norm", f"{hf}final_layer_norm")
        return rules

    def hf_config(self, knobs: dict) -> dict:
        return {
            "model_type": "marian",
            "architectures": [self.architecture],
            "d_model": knobs["d_model"],
            "encoder_attention_heads": knobs["n_heads"],
            "decoder_attention_heads": knobs["n_heads"],
            "encoder_ffn_dim": knobs["d_ff"],
            "decoder_ffn_dim": knobs["d_ff"],
            "encoder_layers": knobs["num_encoder_layers"],
            "decoder_layers": knobs["num_decoder_layers"],
            "max_position_embeddings": knobs["max_len"],
            "scale_embedding": knobs["scale_embedding"],
            "activation_function": HF_ACTIVATIONS[knobs["activation"]],
            "dropout": knobs["dropout"],
            "activation_dropout": knobs["activation_dropout"] or 0.0,
            "attention_dropout": attention_dropout(knobs),
            "vocab_size": knobs["vocab_size"],
            "decoder_vocab_size": knobs["vocab_size"],
            "pad_token_id": knobs.get("pad_id"),
            "eos_token_id": knobs.get("eos_id"),
            "decoder_start_token_id": knobs.get("bos_id"),
            "share_encoder_decoder_embeddings": True,
            "tie_word_embeddings": True,
        }
