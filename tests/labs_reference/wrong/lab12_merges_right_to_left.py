# A student merged from the right end of each piece: "aaa" becomes "a" "aa", not "aa" "a".
from mutant import mutant

learn_merges = mutant("lab12_bpe_train.py", """            ids, out, i = word[0], [], 0
            while i < len(ids):
                if i + 1 < len(ids) and ids[i] == left and ids[i + 1] == right:
                    out.append(merged)
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            word[0] = out""", """            ids, out, i = word[0], [], len(ids) - 1 if (ids := word[0]) else -1
            while i >= 0:
                if i >= 1 and ids[i - 1] == left and ids[i] == right:
                    out.insert(0, merged)
                    i -= 2
                else:
                    out.insert(0, ids[i])
                    i -= 1
            word[0] = out""").learn_merges
