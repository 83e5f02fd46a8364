import numpy as np


def attention_head(q, k, v, start_pos):
    seq, head_dim = q.shape
    scores = q @ k.T / np.sqrt(head_dim)
    query_pos = np.arange(start_pos, start_pos + seq)[:, None]
    key_pos = np.arange(k.shape[0])[None, :]
    scores = np.where(key_pos > query_pos, -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v
