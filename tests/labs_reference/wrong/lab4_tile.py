# A student tiled the heads (0 1 0 1 ...) instead of repeating each (0 0 0 0 1 1 1 1): query
# head h then reads KV head h % N_KVHeads, not h // n_rep.
import numpy as np


def repeat_kv(kv, n_rep):
    return np.tile(kv, (1, n_rep, 1))
