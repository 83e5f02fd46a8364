# A student forgot the division by sqrt(HeadDim).
import numpy as np


def attention_head(q, k, v, start_pos):
    seq = q.shape[0]
    scores = q @ k.T
    scores = np.where(np.arange(k.shape[0])[None, :] > np.arange(start_pos, start_pos + seq)[:, None], -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
