# A student numbered the positions from 0 in every call, ignoring start_pos: right for a
# prefill, wrong for a decode step or a later ubatch.
import numpy as np


def rope(x, start_pos, theta):
    seq, heads, head_dim = x.shape
    angles = np.outer(np.arange(seq), theta ** (-np.arange(0, head_dim, 2) / head_dim))
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * angles)[:, None, :]
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape).astype(np.float32)
