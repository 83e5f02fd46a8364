# A student stopped before the token that reaches p (kept the prefix whose sum stays below p).
import numpy as np


def probabilities(logits, temperature):
    z = np.asarray(logits, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def top_p(probs, p):
    order = np.argsort(-np.asarray(probs), kind="stable")
    kept, total = [int(order[0])], float(probs[order[0]])
    for i in order[1:]:
        if total + float(probs[i]) >= p:
            break
        kept.append(int(i))
        total += float(probs[i])
    return [(i, float(probs[i]) / total) for i in kept]
