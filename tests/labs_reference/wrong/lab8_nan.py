# A student returned NaN gradients of the right shapes; NaN must not pass.
import numpy as np


def block_backward(x, weights, d_out, params, start_pos=0):
    grads = {k: np.full(w.shape, np.nan) for k, w in weights.items()}
    return {"dx": np.full(x.shape, np.nan), "dh": np.full(x.shape, np.nan), **grads}
