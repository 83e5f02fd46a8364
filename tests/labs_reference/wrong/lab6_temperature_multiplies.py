# A student multiplied the logits by the temperature instead of dividing.
import numpy as np


def probabilities(logits, temperature):
    z = np.asarray(logits, dtype=np.float64) * temperature
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
    return [(i, float(probs[i]) / total) for i in kept]
