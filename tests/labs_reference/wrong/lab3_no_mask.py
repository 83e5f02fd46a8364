# A student forgot the causal mask: every query sees the keys after it too.
import numpy as np


def attention_head(q, k, v, start_pos):
    scores = q @ k.T / np.sqrt(q.shape[1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
