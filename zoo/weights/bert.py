"""BERT (Devlin et al. 2019; Hugging Face's ``BertModel``): a post-norm encoder with learned positions, token
types and a LayerNorm on the embeddings. Its pooler (dense + tanh over ``[CLS]``) becomes zoo's
``model.pooling=cls`` with ``model.pooler=tanh``, and ``BertForSequenceClassification``'s classifier zoo's head;
the pre-training heads (``cls.predictions``, ``cls.seq_relationship``) have no counterpart in a classifier."""

from __future__ import annotations

import torch

from zoo.weights.family import COMMON, HF_ACTIVATIONS, Family, activation, attention_dropout, require, special_ids
from zoo.weights.rules import Rule, linear, stacked


class BERT(Family):
    model_type, backbone, architecture = "bert", "encoder_only", "BertModel"
    prefix, export_prefix = "bert.", ""  # BertForSequenceClassification's; BertModel's
    classifier, classifier_knobs = "BertForSequenceClassification", {"pooling": "cls", "pooler": "tanh"}
    buffers = ("embeddings.position_ids",)
    heads = ("pooler.", "classifier.", "cls.")  # the pooler, a sequence classifier, the pre-training heads
    fixed = {
        **{name: value for name, value in COMMON.items() if name not in ("token_types", "embedding_norm")},
        "embedding_norm": True,
        "norm": "layernorm",
        "norm_position": "post",
        "pe": "learned",
        "scale_embedding": False,
        "bias": True,
    }

    def knobs(self, hf: dict) -> dict:
        require(hf, "position_embedding_type", ("absolute",), "absolute")
        require(hf, "is_decoder", (False,), False)
        d_model = hf["hidden_size"]
        return {
            **self.fixed,
            **special_ids(hf, "pad_token_id"),
            "d_model": d_model,
            "n_heads": hf["num_attention_heads"],
            "d_ff": hf["intermediate_size"],
            "num_layers": hf["num_hidden_layers"],
            "max_len": hf["max_position_embeddings"],
            "norm_eps": hf.get("layer_norm_eps", 1e-12),
            "token_types": hf.get("type_vocab_size", 2),
            "activation": activation(hf, "hidden_act"),
            "dropout": hf.get("hidden_dropout_prob", 0.1),
            "activation_dropout": 0.0,  # BERT's intermediate layer has no dropout
            "attention_dropout": hf.get("attention_probs_dropout_prob", 0.1),
            "vocab_size": hf["vocab_size"],
        }

    def rules(self, knobs: dict) -> list[Rule]:
        d = knobs["d_model"]
        rules = [
            Rule("embed.tokens.weight", ("embeddings.word_embeddings.weight",)),
            Rule("embed.pe.table.weight", ("embeddings.position_embeddings.weight",)),
            *linear("embed.norm", "embeddings.LayerNorm"),
        ]
        if knobs["token_types"]:
            rules.append(Rule("embed.types.weight", ("embeddings.token_type_embeddings.weight",)))
        for i in range(knobs["num_layers"]):
            zoo, hf = f"encoder.layers.{i}.", f"encoder.layer.{i}."
            attention = [f"{hf}attention.self.{name}" for name in ("query", "key", "value")]
            rules += stacked(f"{zoo}self_attn.in_proj", attention, (d, d, d), True)
            rules += linear(f"{zoo}self_attn.out_proj", f"{hf}attention.output.dense")
            rules += linear(f"{zoo}self_attn_norm", f"{hf}attention.output.LayerNorm")
            rules += linear(f"{zoo}ffn.linear1", f"{hf}intermediate.dense")
            rules += linear(f"{zoo}ffn.linear2", f"{hf}output.dense")
            rules += linear(f"{zoo}ffn_norm", f"{hf}output.LayerNorm")
        return rules

    def head_knobs(self, heads: dict, num_classes: int | None) -> dict:
        """``[CLS]`` pooled, through the pooler where the folder has one; ``num_classes`` (``None``: the
        classifier's labels, else 2)."""
        labels = heads["classifier.weight"].shape[0] if "classifier.weight" in heads else None
        pooler = "tanh" if "pooler.dense.weight" in heads else "none"
        return {"pooling": "cls", "pooler": pooler, "num_classes": num_classes or labels or 2}

    def head_rules(self, knobs: dict) -> list[Rule]:
        pooler = linear("pooler.0", "pooler.dense") if knobs["pooler"] == "tanh" else []
        return [*pooler, *linear("head.1", "classifier")]

    def export_extras(self, knobs: dict) -> dict:
        """A model without token types: BERT's table of one type, zero, which adds nothing."""
        if knobs.get("token_types"):
            return {}
        return {"embeddings.token_type_embeddings.weight": torch.zeros(1, knobs["d_model"])}

    def hf_config(self, knobs: dict) -> dict:
        return {
            "model_type": "bert",
            "architectures": [self.architecture],
            "hidden_size": knobs["d_model"],
            "num_attention_heads": knobs["n_heads"],
            "intermediate_size": knobs["d_ff"],
            "num_hidden_layers": knobs["num_layers"],
            "max_position_embeddings": knobs["max_len"],
            "layer_norm_eps": knobs["norm_eps"],
            "type_vocab_size": max(1, knobs["token_types"]),
            "hidden_act": HF_ACTIVATIONS[knobs["activation"]],
            "hidden_dropout_prob": knobs["dropout"],
            "attention_probs_dropout_prob": attention_dropout(knobs),
            "vocab_size": knobs["vocab_size"],
            "pad_token_id": knobs.get("pad_id"),
        }
