#!/usr/bin/env python3
"""Held-out bits per byte and greedy samples, using the EXPORTED bfloat16
weights in model/ run through reference_model.py (bf16, like Meta's).

Held-out set: Jude + Revelation (data/heldout.npy, the chapter documents as
<|begin_of_text|> text <|end_of_text|>). Sliding windows of 256 tokens
(the training length) with stride 128; every token after the first is
predicted exactly once, with at least 128 tokens of context except in the
first window. bits per byte = sum of -log2 p(token) over all predicted tokens
(special tokens included) / UTF-8 bytes of the held-out text.
Writes eval.json and samples.txt. `evaluate.py --model DIR` measures another checkpoint of
Meta's layout (converted to bfloat16 as model/ was, e.g. by `llama-walkthrough convert --to meta`)
the same way and only prints the result."""
import json, math, os, sys, time
import numpy as np
import torch
import torch.nn.functional as F
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reference_model import load_model, generate_greedy
from make_corpus import load_docs

WIN, STRIDE = 256, 128
PROMPTS = [
    "In the beginning God created",
    "And the LORD said unto Moses,",
    "Blessed are the",
    "The LORD is my shepherd;",
    "And Jesus answered and said unto them,",
]

@torch.inference_mode()
def heldout_bpb(model):
    data = np.load(os.path.join(HERE, "data", "heldout.npy")).astype(np.int64)
    nbytes = sum(len(d.encode("utf-8")) for d in load_docs("heldout"))
    jobs = []   # (start, first target index within window)
    start = 0
    while True:
        end = min(start + WIN, len(data))
        jobs.append((start, end, 0 if start == 0 else WIN - STRIDE - 1))
        if end == len(data):
            break
        start += STRIDE
    total_nats, count = 0.0, 0
    for s, e, k in jobs:
        x = torch.tensor(data[s:e - 1])[None]
        y = torch.tensor(data[s + 1:e])
        logits = model(x, 0)[0]                      # bf16 model, float32 logits
        nll = F.cross_entropy(logits, y, reduction="none")
        total_nats += nll[k:].double().sum().item()
        count += len(nll) - k
    assert count == len(data) - 1, (count, len(data))
    bits = total_nats / math.log(2)
    return {"heldout_tokens_predicted": count, "heldout_bytes": nbytes,
            "nats_per_token": total_nats / count, "bits_per_byte": bits / nbytes}

def main():
    torch.set_num_threads(2)
    t0 = time.time()
    other = sys.argv[2] if len(sys.argv) == 3 and sys.argv[1] == "--model" else None
    model, tok = load_model(other, max_seq_len=256, max_batch_size=1)
    res = heldout_bpb(model)
    res["torch"] = torch.__version__
    res["dtype"] = "bfloat16"
    print(json.dumps(res, indent=2), f"({time.time()-t0:.0f}s)")
    if other:
        return
    with open(os.path.join(HERE, "eval.json"), "w") as f:
        json.dump(res, f, indent=2); f.write("\n")
    with open(os.path.join(HERE, "samples.txt"), "w") as f:
        for p in PROMPTS:
            ids = tok.encode(p, bos=True)
            out = generate_greedy(model, ids, 80, stop_ids=(tok.eos_id,))
            s = p + tok.decode([t for t in out if t < tok.n_base])
            print("---\n" + s)
            f.write(f"### prompt: {p!r} (greedy, 80 tokens)\n{s}\n\n")

if __name__ == "__main__":
    main()
