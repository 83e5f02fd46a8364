# A student stopped before the token that reaches p: kept the prefix whose sum stays below p.
from mutant import mutant

m = mutant("lab6_sampling.py", 'kept.append(int(i))\n        total += float(probs[i])\n        if total >= p:\n            break', 'if kept and total + float(probs[i]) >= p:\n            break\n        kept.append(int(i))\n        total += float(probs[i])')
probabilities, top_p = m.probabilities, m.top_p
