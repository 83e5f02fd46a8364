"""Lab 8: one transformer block's backward pass (chapter 21). Check: chapters/labs/check.py 8"""
import numpy as np


def block_backward(x, weights, d_out, params, start_pos=0):
    """The gradients of one block of a tiny Llama (dim 64, 4 query heads over 2 KV heads, FFN
    width 224) in its first training step, checked against the engine's backward stages.

    x: [seqLen, dim], the block's input (its forward pass starts from it: attention_norm, Q/K/V,
    RoPE, the causal softmax, repeated KV heads, wo, the residual; ffn_norm, SwiGLU, the residual).
    weights: {"attention_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w1", "w2", "w3"}, float32,
    each [out, in] as stored in the checkpoint. d_out: [seqLen, dim], the loss's gradient with
    respect to the block's output. params: params.json's keys (dim, n_heads, n_kv_heads, norm_eps,
    rope_theta). Returns a dict: "dx" (the gradient with respect to x, residual included), "dh"
    (with respect to the residual stream between attention and the feed-forward), and one entry
    per weight, named as in `weights`, each of its weight's shape.
    The engine computes in float32; float64 here agrees within the checker's tolerance."""
    raise NotImplementedError("lab 8: write block_backward")
