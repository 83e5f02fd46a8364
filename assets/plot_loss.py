#!/usr/bin/env python3
"""Plot train and held-out loss vs step from ckpt/log.jsonl into loss.png."""
import json, math, os
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
HERE = os.path.dirname(os.path.abspath(__file__))

def main():
    recs = [json.loads(l) for l in open(os.path.join(HERE, "ckpt", "log.jsonl"))]
    # a resumed run re-logs the steps after its checkpoint: keep the last record per step
    by_step = {}
    for r in recs:
        if "step" in r:
            by_step[r["step"]] = r
    recs = [by_step[k] for k in sorted(by_step)]
    tr = [(r["step"], r["train_loss"]) for r in recs]
    he = [(r["step"], r["heldout_loss"]) for r in recs if "heldout_loss" in r]
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(*zip(*tr), label="train (mean of last 25 batches)", lw=1)
    ax.plot(*zip(*he), "o-", ms=3, label="held-out: Jude + Revelation", lw=1.5)
    ax.set_xlabel("step (16 x 256 tokens)")
    ax.set_ylabel("cross-entropy (nats / token)")
    ax.set_ylim(min(v for _, v in tr + he) - 0.2, 6.0)
    ax.grid(alpha=0.3)
    sec = ax.secondary_yaxis("right", functions=(lambda x: x / math.log(2) / 4.008,
                                                 lambda b: b * math.log(2) * 4.008))
    sec.set_ylabel("approx. held-out bits per byte (4.008 bytes/token)")
    ax.set_title("Llama 3 style 9.7M model on the King James Bible (bf16 autocast training)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "loss.png"), dpi=110)
    print("wrote loss.png", len(tr), "points")

if __name__ == "__main__":
    main()
