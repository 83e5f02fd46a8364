# A student forgot the up projection: silu(x w1^T) w2^T.
import numpy as np


def swiglu(x, w1, w2, w3):
    gate = x @ w1.T
    return (gate / (1 + np.exp(-gate))) @ w2.T
