#!/usr/bin/env python3
"""Encode data/{train,heldout}.txt into token streams data/*.npy (uint16).
Every chapter document becomes <|begin_of_text|> text <|end_of_text|>."""
import os, sys, time
import numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tokenizer import Tokenizer
from make_corpus import load_docs

def main():
    tok = Tokenizer(os.path.join(HERE, "model", "tokenizer.model"))
    for name in ("train", "heldout"):
        t0 = time.time()
        ids = []
        nbytes = 0
        for doc in load_docs(name):
            ids += tok.encode(doc, bos=True, eos=True, allow_special=False)
            nbytes += len(doc.encode("utf-8"))
        arr = np.array(ids, dtype=np.uint16)
        np.save(os.path.join(HERE, "data", name + ".npy"), arr)
        print(f"{name}: {len(arr)} tokens, {nbytes} bytes, {nbytes/len(arr):.3f} bytes/token, {time.time()-t0:.1f}s")

if __name__ == "__main__":
    main()
