#!/usr/bin/env python3
"""Byte-level BPE tokenizer in tiktoken format, with Llama 3's special tokens.

tokenizer.model: one line per base token, "<base64 of raw bytes> <rank>",
ranks 0..N-1. Ranks 0..255 are the 256 single bytes; the rest are merges in
training order. Encoding works like tiktoken: split the text with Llama 3's
pre-tokenizer regex, then inside each piece repeatedly merge the adjacent pair
whose concatenation has the lowest rank (leftmost on ties) until no adjacent
concatenation is in the vocabulary.

The 256 special tokens get ids N..N+255 in Llama 3's order.
"""
import base64
import regex

PAT_STR = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"

NUM_RESERVED_SPECIAL_TOKENS = 256

def special_token_names():
    names = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|reserved_special_token_2|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",
        "<|python_tag|>",
    ]
    names += [f"<|reserved_special_token_{i}|>"
              for i in range(3, NUM_RESERVED_SPECIAL_TOKENS - len(names) + 3)]
    assert len(names) == NUM_RESERVED_SPECIAL_TOKENS
    return names


def load_ranks(path):
    ranks = {}
    with open(path, "rb") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            tok, rank = line.split()
            ranks[base64.b64decode(tok)] = int(rank)
    assert sorted(ranks.values()) == list(range(len(ranks)))
    return ranks


def save_ranks(ranks, path):
    with open(path, "wb") as f:
        for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
            f.write(base64.b64encode(tok) + b" " + str(rank).encode() + b"\n")


def byte_pair_merge(piece, ranks):
    """tiktoken's algorithm: returns list of byte strings."""
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best_rank, best_i = None, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best_rank is None or r < best_rank):
                best_rank, best_i = r, i
        if best_rank is None:
            break
        parts[best_i:best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


class Tokenizer:
    def __init__(self, model_path):
        self.mergeable_ranks = load_ranks(model_path)
        self.n_base = len(self.mergeable_ranks)
        self.special_tokens = {name: self.n_base + i for i, name in enumerate(special_token_names())}
        self.n_words = self.n_base + len(self.special_tokens)
        self.decoder = {r: t for t, r in self.mergeable_ranks.items()}
        for name, i in self.special_tokens.items():
            self.decoder[i] = name.encode("utf-8")
        self.bos_id = self.special_tokens["<|begin_of_text|>"]
        self.eos_id = self.special_tokens["<|end_of_text|>"]
        self.eot_id = self.special_tokens["<|eot_id|>"]
        self.pat = regex.compile(PAT_STR)
        self.special_pat = regex.compile("|".join(regex.escape(s) for s in self.special_tokens))
        self._cache = {}

    def encode_ordinary(self, text):
        out = []
        for m in self.pat.finditer(text):
            piece = m.group(0)
            ids = self._cache.get(piece)
            if ids is None:
                b = piece.encode("utf-8")
                r = self.mergeable_ranks.get(b)
                if r is not None:
                    ids = [r]
                else:
                    ids = [self.mergeable_ranks[p] for p in byte_pair_merge(b, self.mergeable_ranks)]
                if len(self._cache) < 200000:
                    self._cache[piece] = ids
            out.extend(ids)
        return out

    def encode(self, text, bos=False, eos=False, allow_special=True):
        """Encode text; special tokens written literally in the text are
        recognised (allow_special=True, like tiktoken allowed_special='all')."""
        ids = [self.bos_id] if bos else []
        if allow_special:
            pos = 0
            for m in self.special_pat.finditer(text):
                ids += self.encode_ordinary(text[pos:m.start()])
                ids.append(self.special_tokens[m.group(0)])
                pos = m.end()
            ids += self.encode_ordinary(text[pos:])
        else:
            ids += self.encode_ordinary(text)
        if eos:
            ids.append(self.eos_id)
        return ids

    def decode_bytes(self, ids):
        return b"".join(self.decoder[i] for i in ids)

    def decode(self, ids):
        return self.decode_bytes(ids).decode("utf-8", errors="replace")
