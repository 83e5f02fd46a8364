# A student built the mask for a prefill only (query i sees keys 0..i), ignoring start_pos:
# a decode step's query then sees only the first key.
import numpy as np


def attention_head(q, k, v, start_pos):
    seq, head_dim = q.shape
    scores = q @ k.T / np.sqrt(head_dim)
    scores = np.where(np.triu(np.ones((seq, k.shape[0]), dtype=bool), 1), -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
