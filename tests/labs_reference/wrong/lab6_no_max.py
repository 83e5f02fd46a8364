# A student computed softmax without subtracting the largest logit: e^x overflows for large logits.
import numpy as np


def probabilities(logits, temperature):
    e = np.exp(np.asarray(logits, dtype=np.float64) / temperature)
    return e / e.sum()


def top_p(probs, p):
    order = np.argsort(-np.asarray(probs), kind="stable")
    kept, total = [], 0.0
    for i in order:
        kept.append(int(i))
        total += float(probs[i])
        if total >= p:
            break
    return [(i, float(probs[i]) / total) for i in kept]
