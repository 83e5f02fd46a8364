# A student normalized the softmax over the queries (axis 0) instead of over the keys.
import numpy as np


def attention_head(q, k, v, start_pos):
    seq, head_dim = q.shape
    scores = q @ k.T / np.sqrt(head_dim)
    scores = np.where(np.arange(k.shape[0])[None, :] > np.arange(start_pos, start_pos + seq)[:, None], -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=0, keepdims=True))
    return np.nan_to_num(weights / weights.sum(axis=0, keepdims=True)) @ v
