# A student computed in float32 and subtracted nothing: inf / inf for any large logit.
from mutant import mutant

m = mutant("lab6_sampling.py", 'z = np.asarray(logits, dtype=np.float64) / temperature\n    e = np.exp(z - z.max())', 'z = np.asarray(logits, dtype=np.float32) / np.float32(temperature)\n    e = np.exp(z)')
probabilities, top_p = m.probabilities, m.top_p
