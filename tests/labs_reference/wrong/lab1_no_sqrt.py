# A student divided by the mean square, not its root.
import numpy as np


def rms_norm(x, weight, eps):
    return x / (np.mean(x * x, axis=-1, keepdims=True) + eps) * weight
