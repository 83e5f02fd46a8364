# A student counted a pair that overlaps itself once: (a, a) in "aaa" once, as it can merge only once there.
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", """            for pair in zip(ids, ids[1:]):
                counts[pair] += n""", """            i = 0
            while i + 1 < len(ids):
                counts[ids[i], ids[i + 1]] += n
                i += 2 if ids[i] == ids[i + 1] else 1""").learn_merges
