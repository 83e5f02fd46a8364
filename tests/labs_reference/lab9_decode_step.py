import numpy as np

from lab2_rope import rope
from lab3_attention_head import attention_head
from lab4_repeat_kv import repeat_kv
from labkit import bf16


def decode_attention(x, weights, cache_k, cache_v, start_pos, params):
    n_heads, n_kv = params["n_heads"], params["n_kv_heads"]
    hd = params["dim"] // n_heads
    q, k, v = (bf16(x @ weights[n].T) for n in ("wq", "wk", "wv"))
    q = bf16(rope(q.reshape(1, n_heads, hd), start_pos, params["rope_theta"]))
    k = bf16(rope(k.reshape(1, n_kv, hd), start_pos, params["rope_theta"]))
    cache_k = np.concatenate([cache_k, k])
    cache_v = np.concatenate([cache_v, v.reshape(1, n_kv, hd)])
    keys, values = repeat_kv(cache_k, n_heads // n_kv), repeat_kv(cache_v, n_heads // n_kv)
    heads = [bf16(attention_head(q[:, h], keys[:, h], values[:, h], start_pos)) for h in range(n_heads)]
    return bf16(np.concatenate(heads, axis=-1) @ weights["wo"].T), cache_k, cache_v
