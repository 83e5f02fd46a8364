# A student scaled by (1 + weight), as Gemma stores its norm weights; Llama does not.
import numpy as np


def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * (1 + weight)
