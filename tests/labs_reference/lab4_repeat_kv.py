import numpy as np


def repeat_kv(kv, n_rep):
    return np.repeat(kv, n_rep, axis=1)
