# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def attention_head(q, k, v, start_pos):
    return np.full((q.shape[0], v.shape[1]), np.nan, dtype=np.float32)
