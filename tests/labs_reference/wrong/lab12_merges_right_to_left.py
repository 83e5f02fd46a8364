# A student merged from the right end of each piece: "aaa" becomes "a" "aa", not "aa" "a".
from mutant import mutant

# The merge loop run on each piece reversed, looking for the pair reversed, and its result turned back.
learn_merges = mutant("lab12_bpe_train.py", "ids, out, i = word[0], [], 0", "ids, out, i = word[0][::-1], [], 0",
                      ("ids[i] == left and ids[i + 1] == right", "ids[i] == right and ids[i + 1] == left"),
                      ("word[0] = out", "word[0] = out[::-1]")).learn_merges
