# Lab 7 as labs.md tells students to write it: labs 1-5's functions imported and composed, each
# result rounded to BF16 as the checkers of labs 1-5 round it, and every other product and sum
# rounded the same way. It must pass lab 7's checker.
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lab1_rmsnorm import rms_norm  # noqa: E402
from lab2_rope import rope  # noqa: E402
from lab3_attention_head import attention_head  # noqa: E402
from lab4_repeat_kv import repeat_kv  # noqa: E402
from lab5_swiglu import swiglu  # noqa: E402
from labkit import bf16  # noqa: E402


def forward(weights, params, tokens):
    W, seq = weights, len(tokens)
    dim, n_heads, n_kv = params["dim"], params["n_heads"], params["n_kv_heads"]
    hd, eps, theta = dim // n_heads, params["norm_eps"], params["rope_theta"]
    x = W["tok_embeddings.weight"][tokens]
    for layer in range(params["n_layers"]):
        p = f"layers.{layer}."
        h = bf16(rms_norm(x, W[p + "attention_norm.weight"], eps))
        q, k, v = (bf16(h @ W[p + f"attention.{n}.weight"].T) for n in ("wq", "wk", "wv"))
        q = bf16(rope(q.reshape(seq, n_heads, hd), 0, theta))
        k = repeat_kv(bf16(rope(k.reshape(seq, n_kv, hd), 0, theta)), n_heads // n_kv)
        v = repeat_kv(v.reshape(seq, n_kv, hd), n_heads // n_kv)
        heads = [bf16(attention_head(q[:, i], k[:, i], v[:, i], 0)) for i in range(n_heads)]
        x = bf16(x + bf16(np.concatenate(heads, axis=-1) @ W[p + "attention.wo.weight"].T))
        h = bf16(rms_norm(x, W[p + "ffn_norm.weight"], eps))
        x = bf16(x + bf16(swiglu(h, *(W[p + f"feed_forward.{n}.weight"] for n in ("w1", "w2", "w3")))))
    return bf16(bf16(rms_norm(x, W["norm.weight"], eps)) @ W["output.weight"].T)
