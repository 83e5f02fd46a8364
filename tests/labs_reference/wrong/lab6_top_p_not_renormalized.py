# A student kept the top-p tokens but did not renormalize their probabilities to sum to 1.
from mutant import mutant

m = mutant("lab6_sampling.py", 'float(probs[i]) / total)', 'float(probs[i]))')
probabilities, top_p = m.probabilities, m.top_p
