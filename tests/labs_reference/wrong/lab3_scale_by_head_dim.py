# A student divided by HeadDim instead of its square root.
import numpy as np


def attention_head(q, k, v, start_pos):
    seq, head_dim = q.shape
    scores = q @ k.T / head_dim
    scores = np.where(np.arange(k.shape[0])[None, :] > np.arange(start_pos, start_pos + seq)[:, None], -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
