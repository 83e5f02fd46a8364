# A student paired element i with element i + HeadDim/2 (Hugging Face's rotate_half) instead of
# the adjacent pairs (2i, 2i+1) of Meta's checkpoint.
import numpy as np


def rope(x, start_pos, theta):
    seq, heads, head_dim = x.shape
    angles = np.outer(np.arange(start_pos, start_pos + seq), theta ** (-np.arange(0, head_dim, 2) / head_dim))
    z = (x[..., :head_dim // 2] + 1j * x[..., head_dim // 2:]) * np.exp(1j * angles)[:, None, :]
    return np.concatenate([z.real, z.imag], axis=-1).astype(np.float32)
