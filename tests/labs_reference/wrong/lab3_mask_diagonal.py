# A student masked the diagonal too (a strict <): a token cannot see itself, and the first
# token sees nothing.
import numpy as np


def attention_head(q, k, v, start_pos):
    seq, head_dim = q.shape
    scores = q @ k.T / np.sqrt(head_dim)
    scores = np.where(np.arange(k.shape[0])[None, :] >= np.arange(start_pos, start_pos + seq)[:, None], -1e9, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
