# A student ignored the pre-tokenizer's boundaries: the whole text is one sequence of bytes, and pairs span two pieces.
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", "collections.Counter(pieces).items()", "{''.join(pieces): 1}.items()").learn_merges
