# A student computed softmax without subtracting the largest logit: e^x overflows for large logits.
from mutant import mutant

m = mutant("lab6_sampling.py", 'e = np.exp(z - z.max())', 'e = np.exp(z)')
probabilities, top_p = m.probabilities, m.top_p
