# The classic mask np.triu(np.ones(...), 1) * -np.inf: 0 * -inf is NaN, so every score the
# mask should keep becomes NaN.
import numpy as np


def attention_head(q, k, v, start_pos):
    seq, head_dim = q.shape
    scores = q @ k.T / np.sqrt(head_dim)
    scores = scores + np.triu(np.ones((seq, k.shape[0])), 1 + start_pos) * -np.inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
