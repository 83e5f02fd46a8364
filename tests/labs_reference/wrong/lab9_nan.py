# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def decode_attention(x, weights, cache_k, cache_v, start_pos, params):
    row = np.full((1,) + cache_k.shape[1:], np.nan, dtype=np.float32)
    return np.full_like(x, np.nan), np.concatenate([cache_k, row]), np.concatenate([cache_v, row])
