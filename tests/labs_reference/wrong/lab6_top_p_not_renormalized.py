# A student kept the top-p tokens but did not renormalize their probabilities to sum to 1.
import numpy as np


def probabilities(logits, temperature):
    z = np.asarray(logits, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def top_p(probs, p):
    order = np.argsort(-np.asarray(probs), kind="stable")
    kept, total = [], 0.0
    for i in order:
        kept.append(int(i))
        total += float(probs[i])
        if total >= p:
            break
    return [(i, float(probs[i])) for i in kept]
