# A student took the mean over the tokens (axis 0) instead of over each row.
import numpy as np


def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=0, keepdims=True) + eps) * weight
