# A student wrote LayerNorm: subtracted the mean and divided by the standard deviation.
import numpy as np


def rms_norm(x, weight, eps):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * weight
