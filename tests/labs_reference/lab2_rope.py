import numpy as np


def rope(x, start_pos, theta):
    seq, heads, head_dim = x.shape
    freqs = theta ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    angles = np.outer(np.arange(start_pos, start_pos + seq), freqs)   # [seq, head_dim / 2]
    rot = np.exp(1j * angles)[:, None, :]                             # one per token, every head
    pairs = x[..., 0::2] + 1j * x[..., 1::2]
    out = pairs * rot
    return np.stack([out.real, out.imag], axis=-1).reshape(x.shape).astype(np.float32)
