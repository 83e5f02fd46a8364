import collections


def learn_merges(pieces, n_merges):
    # Each distinct piece once, as [token ids, occurrences]: the counts are the same, the work less.
    words = [[list(piece.encode("utf-8")), n] for piece, n in collections.Counter(pieces).items()]
    tokens = [bytes([b]) for b in range(256)]  # a token's bytes, by rank
    merges = []
    for _ in range(n_merges):
        counts = collections.Counter()
        for ids, n in words:
            for pair in zip(ids, ids[1:]):
                counts[pair] += n
        if not counts:
            break
        (left, right), count = max(counts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
        merged = len(tokens)
        tokens.append(tokens[left] + tokens[right])
        merges.append((tokens[left], tokens[right], count))
        for word in words:
            ids, out, i = word[0], [], 0
            while i < len(ids):
                if i + 1 < len(ids) and ids[i] == left and ids[i + 1] == right:
                    out.append(merged)
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            word[0] = out
    return merges
