# A student broke ties by the tokens' bytes (the smallest first), not by their ranks.
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", "max(counts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))",
                      "min(counts.items(), key=lambda kv: (-kv[1], tokens[kv[0][0]], tokens[kv[0][1]]))").learn_merges
