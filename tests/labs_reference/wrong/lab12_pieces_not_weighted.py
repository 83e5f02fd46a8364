# A student counted each distinct piece once, not as often as it occurs in the text.
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", "collections.Counter(pieces).items()", "dict.fromkeys(pieces, 1).items()").learn_merges
