# A student decoded the bytes as text: each piece starts as its characters ("é" one token, not two bytes).
import collections


def learn_merges(pieces, n_merges):
    words = [[list(piece), n] for piece, n in collections.Counter(pieces).items()]
    rank = {chr(b): b for b in range(256)}  # a character's rank: its code point; merged tokens follow
    merges = []
    for _ in range(n_merges):
        counts = collections.Counter()
        for chars, n in words:
            for pair in zip(chars, chars[1:]):
                counts[pair] += n
        if not counts:
            break
        (left, right), count = max(counts.items(), key=lambda kv: (kv[1], -rank.get(kv[0][0], ord(kv[0][0][0])), -rank.get(kv[0][1], ord(kv[0][1][0]))))
        rank[left + right] = 256 + len(merges)
        merges.append((left.encode("utf-8"), right.encode("utf-8"), count))
        for word in words:
            chars, out, i = word[0], [], 0
            while i < len(chars):
                if i + 1 < len(chars) and chars[i] == left and chars[i + 1] == right:
                    out.append(left + right)
                    i += 2
                else:
                    out.append(chars[i])
                    i += 1
            word[0] = out
    return merges
