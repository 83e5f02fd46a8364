#!/usr/bin/env python3
"""Train the byte-level BPE on data/train.txt and write model/tokenizer.model.

Word-count BPE: the training text is pre-tokenized with Llama 3's regex, the
distinct pieces are counted, and merges are learned on those counts with an
incremental pair-count index. Merge k (k = 0,1,...) gets rank 256 + k.
"""
import collections, os, sys, time
import regex
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tokenizer import PAT_STR, save_ranks, NUM_RESERVED_SPECIAL_TOKENS

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB_SIZE = 4096                                   # including specials
N_BASE = VOCAB_SIZE - NUM_RESERVED_SPECIAL_TOKENS   # 3840 ranks in tokenizer.model

def main():
    t0 = time.time()
    text = open(os.path.join(HERE, "data", "train.txt"), encoding="utf-8").read().replace("\f\n", "")
    counts = collections.Counter(regex.findall(PAT_STR, text))
    words = []    # list of [list of token ids]
    freqs = []
    for w, c in counts.items():
        words.append(list(w.encode("utf-8")))
        freqs.append(c)
    vocab = {i: bytes([i]) for i in range(256)}
    tok_of = {bytes([i]): i for i in range(256)}
    pair_counts = collections.Counter()
    where = collections.defaultdict(set)
    for wi, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pair_counts[(a, b)] += freqs[wi]
            where[(a, b)].add(wi)
    print(f"{len(words)} distinct pieces, {sum(freqs)} pieces", flush=True)
    while len(vocab) < N_BASE:
        if not pair_counts:
            break
        (a, b), c = max(pair_counts.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
        if c <= 0:
            break
        newb = vocab[a] + vocab[b]
        if newb in tok_of:          # same bytes already a token: reuse it
            new = tok_of[newb]
        else:
            new = len(vocab)
            vocab[new] = newb
            tok_of[newb] = new
        for wi in list(where[(a, b)]):
            w = words[wi]
            f = freqs[wi]
            for p in zip(w, w[1:]):
                pair_counts[p] -= f
                if pair_counts[p] <= 0:
                    del pair_counts[p]
            i, nw = 0, []
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    nw.append(new); i += 2
                else:
                    nw.append(w[i]); i += 1
            words[wi] = nw
            for p in zip(nw, nw[1:]):
                pair_counts[p] += f
                where[p].add(wi)
        pair_counts.pop((a, b), None)
        where.pop((a, b), None)
    ranks = {v: k for k, v in vocab.items()}
    os.makedirs(os.path.join(HERE, "model"), exist_ok=True)
    save_ranks(ranks, os.path.join(HERE, "model", "tokenizer.model"))
    print(f"wrote {len(ranks)} ranks in {time.time() - t0:.1f}s; last merges:",
          [vocab[i] for i in range(len(vocab) - 10, len(vocab))])

if __name__ == "__main__":
    main()
