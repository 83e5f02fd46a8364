# A student broke ties between equal counts the other way: to the largest (left, right) ranks.
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", "(kv[1], -kv[0][0], -kv[0][1])", "(kv[1], kv[0][0], kv[0][1])").learn_merges
