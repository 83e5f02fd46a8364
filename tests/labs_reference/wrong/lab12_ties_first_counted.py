# A student took Counter.most_common(1): among equal counts, the pair counted first, not the smallest ranks.
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", "max(counts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))",
                      "counts.most_common(1)[0]").learn_merges
