"""Our three backbones equal torch.nn.Transformer's stacks with the same weights (post-norm and pre-norm): the
encoder-decoder nn.Transformer, the encoder-only nn.TransformerEncoder, and the decoder-only
nn.TransformerEncoder with a causal mask."""

import pytest
import torch
from torch import nn

from zoo.nn import DecoderOnly, EncoderDecoder, EncoderOnly, MultiHeadAttention, TransformerConfig

D, H, FF, LAYERS = 16, 4, 32, 2


def copy_attention(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    ours.in_proj.weight.data.copy_(ref.in_proj_weight)
    ours.in_proj.bias.data.copy_(ref.in_proj_bias)
    ours.out_proj.load_state_dict(ref.out_proj.state_dict())


def copy_layer(ours, ref) -> None:
    copy_attention(ours.self_attn, ref.self_attn)
    ours.ffn.linear1.load_state_dict(ref.linear1.state_dict())
    ours.ffn.linear2.load_state_dict(ref.linear2.state_dict())
    ours.self_attn_norm.load_state_dict(ref.norm1.state_dict())
    if ours.cross_attn is None:
        ours.ffn_norm.load_state_dict(ref.norm2.state_dict())
    else:
        copy_attention(ours.cross_attn, ref.multihead_attn)
        ours.cross_attn_norm.load_state_dict(ref.norm2.state_dict())
        ours.ffn_norm.load_state_dict(ref.norm3.state_dict())


def reference(norm_first: bool):
    """nn.Transformer for pre-norm (it appends a final LayerNorm per stack, as pre-norm needs); for post-norm
    the stacks are built with ``norm=None``, since post-norm has no final norm."""
    kwargs = dict(d_model=D, nhead=H, dim_feedforward=FF, dropout=0.0, batch_first=True, norm_first=norm_first)
    enc_layer, dec_layer = nn.TransformerEncoderLayer(**kwargs), nn.TransformerDecoderLayer(**kwargs)
    final = (lambda: nn.LayerNorm(D)) if norm_first else (lambda: None)
    encoder = nn.TransformerEncoder(enc_layer, LAYERS, norm=final(), enable_nested_tensor=False)
    decoder = nn.TransformerDecoder(dec_layer, LAYERS, norm=final())
    return encoder, decoder


@pytest.mark.parametrize("norm_position", ["post", "pre"])
def test_encoder_decoder_equals_torch_transformer(norm_position):
    torch.manual_seed(0)
    config = TransformerConfig(
        d_model=D, n_heads=H, d_ff=FF, dropout=0.0, pe="none", norm_position=norm_position, scale_embedding=False
    )
    ours = EncoderDecoder(config, 50, 50, LAYERS, LAYERS).double().eval()
    encoder, decoder = reference(norm_first=norm_position == "pre")
    encoder, decoder = encoder.double().eval(), decoder.double().eval()
    # perturb the reference norms away from identity so that copying them is tested too
    for p in list(encoder.parameters()) + list(decoder.parameters()):
        p.data.add_(0.1 * torch.randn_like(p))
    for ours_layer, ref_layer in zip(ours.encoder.layers, encoder.layers, strict=True):
        copy_layer(ours_layer, ref_layer)
    for ours_layer, ref_layer in zip(ours.decoder.layers, decoder.layers, strict=True):
        copy_layer(ours_layer, ref_layer)
    if norm_position == "pre":
        ours.encoder.final_norm.load_state_dict(encoder.norm.state_dict())
        ours.decoder.final_norm.load_state_dict(decoder.norm.state_dict())

    src, tgt = torch.randint(1, 50, (3, 9)), torch.randint(1, 50, (3, 6))
    src_mask, tgt_mask = torch.zeros(3, 9, dtype=torch.bool), torch.zeros(3, 6, dtype=torch.bool)
    src_mask[1, 6:], tgt_mask[2, 4:] = True, True
    memory = ours.encode(src, src_mask)
    hidden = ours.decode(tgt, memory, tgt_mask, src_mask)

    ref_memory = encoder(ours.src_embed(src), src_key_padding_mask=src_mask)
    causal = torch.ones(6, 6, dtype=torch.bool).triu(1)  # True = not allowed, as nn.Transformer reads it
    ref_hidden = decoder(
        ours.tgt_embed(tgt),
        ref_memory,
        tgt_mask=causal,
        tgt_key_padding_mask=tgt_mask,
        memory_key_padding_mask=src_mask,
        tgt_is_causal=True,
    )
    real_src, real_tgt = ~src_mask, ~tgt_mask
    torch.testing.assert_close(memory[real_src], ref_memory[real_src], atol=1e-5, rtol=0)
    torch.testing.assert_close(hidden[real_tgt], ref_hidden[real_tgt], atol=1e-5, rtol=0)


def perturbed(module: nn.Module) -> nn.Module:
    """``module`` in float64, eval mode, its parameters moved off their initial values (norms off identity)."""
    module = module.double().eval()
    for p in module.parameters():
        p.data.add_(0.1 * torch.randn_like(p))
    return module


@pytest.mark.parametrize("norm_position", ["post", "pre"])
@pytest.mark.parametrize("backbone", [EncoderOnly, DecoderOnly])
def test_single_stack_backbones_equal_torch_transformer_encoder(backbone, norm_position):
    """EncoderOnly is nn.TransformerEncoder with a padding mask; DecoderOnly is nn.TransformerEncoder with a
    causal mask (GPT's stack: no cross-attention)."""
    torch.manual_seed(0)
    config = TransformerConfig(
        d_model=D, n_heads=H, d_ff=FF, dropout=0.0, pe="none", norm_position=norm_position, scale_embedding=False
    )
    ours = backbone(config, 50, LAYERS).double().eval()
    stack = ours.encoder if backbone is EncoderOnly else ours.decoder
    encoder, _ = reference(norm_first=norm_position == "pre")
    encoder = perturbed(encoder)
    for ours_layer, ref_layer in zip(stack.layers, encoder.layers, strict=True):
        copy_layer(ours_layer, ref_layer)
    if norm_position == "pre":
        stack.final_norm.load_state_dict(encoder.norm.state_dict())

    tokens = torch.randint(1, 50, (3, 9))
    mask = torch.zeros(3, 9, dtype=torch.bool)
    mask[1, 6:] = True
    if backbone is EncoderOnly:
        hidden = ours(tokens, mask)
        ref_hidden = encoder(ours.embed(tokens), src_key_padding_mask=mask)
    else:
        hidden = ours(tokens, mask)  # next-token logits
        causal = torch.ones(9, 9, dtype=torch.bool).triu(1)
        ref_hidden = ours.output(encoder(ours.embed(tokens), mask=causal, src_key_padding_mask=mask, is_causal=True))
    real = ~mask
    torch.testing.assert_close(hidden[real], ref_hidden[real], atol=1e-5, rtol=0)
