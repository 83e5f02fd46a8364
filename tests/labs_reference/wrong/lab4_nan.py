# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def repeat_kv(kv, n_rep):
    return np.full((kv.shape[0], kv.shape[1] * n_rep, kv.shape[2]), np.nan, dtype=np.float32)
