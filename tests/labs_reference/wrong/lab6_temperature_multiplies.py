# A student multiplied the logits by the temperature instead of dividing.
from mutant import mutant

m = mutant("lab6_sampling.py", 'np.float64) / temperature', 'np.float64) * temperature')
probabilities, top_p = m.probabilities, m.top_p
