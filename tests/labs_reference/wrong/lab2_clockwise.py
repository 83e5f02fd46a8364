# A student rotated the wrong way: multiplied by e^(-j angle).
import numpy as np


def rope(x, start_pos, theta):
    seq, heads, head_dim = x.shape
    angles = np.outer(np.arange(start_pos, start_pos + seq), theta ** (-np.arange(0, head_dim, 2) / head_dim))
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(-1j * angles)[:, None, :]
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape).astype(np.float32)
