# A student subtracted nothing and computed in float32, dividing inf by inf for any large logit.
import numpy as np


def probabilities(logits, temperature):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(logits, dtype=np.float32) / np.float32(temperature))
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
