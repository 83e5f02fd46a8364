# A student counted the pairs once, before the first merge, and never again: merged tokens never pair up.
import collections


def learn_merges(pieces, n_merges):
    words = collections.Counter(pieces)
    tokens = [bytes([b]) for b in range(256)]
    counts = collections.Counter()
    for piece, n in words.items():
        ids = list(piece.encode("utf-8"))
        for pair in zip(ids, ids[1:]):
            counts[pair] += n
    merges = []
    for _ in range(min(n_merges, len(counts))):
        (left, right), count = max(counts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
        del counts[left, right]
        tokens.append(tokens[left] + tokens[right])
        merges.append((tokens[left], tokens[right], count))
    return merges
