# Meta's order of roundings (llama/model.py run in BF16): every matrix product, RMSNorm's
# normalized rows and its product with the weight, RoPE, the softmax and each residual sum
# are stored in BF16; the engine does the same (chapter 4), and also rounds sqrt(HeadDim).
import numpy as np

from lab1_rmsnorm import rms_norm
from lab2_rope import rope
from lab3_attention_head import attention_head
from lab4_repeat_kv import repeat_kv
from labkit import bf16


def norm(x, w, eps):
    return bf16(bf16(rms_norm(x, np.ones_like(w), eps)) * w)


def forward(weights, params, tokens):
    W = weights
    dim, n_heads, n_kv = params["dim"], params["n_heads"], params["n_kv_heads"]
    hd, eps, seq = dim // n_heads, params["norm_eps"], len(tokens)
    x = W["tok_embeddings.weight"][tokens]
    for layer in range(params["n_layers"]):
        p = f"layers.{layer}."
        h = norm(x, W[p + "attention_norm.weight"], eps)
        q, k, v = (bf16(h @ W[p + f"attention.{n}.weight"].T) for n in ("wq", "wk", "wv"))
        q = bf16(rope(q.reshape(seq, n_heads, hd), 0, params["rope_theta"]))
        k = bf16(rope(k.reshape(seq, n_kv, hd), 0, params["rope_theta"]))
        k, v = repeat_kv(k, n_heads // n_kv), repeat_kv(v.reshape(seq, n_kv, hd), n_heads // n_kv)
        heads = [bf16(attention_head(q[:, i], k[:, i], v[:, i], 0)) for i in range(n_heads)]
        x = bf16(x + bf16(np.concatenate(heads, axis=-1) @ W[p + "attention.wo.weight"].T))
        h = norm(x, W[p + "ffn_norm.weight"], eps)
        gate = bf16(h @ W[p + "feed_forward.w1.weight"].T)
        up = bf16(h @ W[p + "feed_forward.w3.weight"].T)
        ffn = bf16(bf16(bf16(gate / (1 + np.exp(-gate))) * up) @ W[p + "feed_forward.w2.weight"].T)
        x = bf16(x + ffn)
    x = norm(x, W["norm.weight"], eps)
    return bf16(x @ W["output.weight"].T)
