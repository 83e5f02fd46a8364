# A student repeated along the tokens instead of the heads.
import numpy as np


def repeat_kv(kv, n_rep):
    return np.repeat(kv, n_rep, axis=0).reshape(kv.shape[0], kv.shape[1] * n_rep, kv.shape[2])
