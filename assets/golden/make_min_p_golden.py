#!/usr/bin/python3
"""Golden values for the min-p sampler, from a numpy reference that shares no code with the engine.
Run with Debian's python3 and python3-numpy: /usr/bin/python3 this_file (writes min_p.json).

The semantics (llama.cpp's min-p sampler, placed after our top-k and top-p as llama.cpp places it
after its own, before its temperature): compute the probabilities at temperature 1, p1 =
softmax(logits), and keep a token when p1 >= min_p * max(p1). The kept tokens are then those of
the chain before it (softmax(logits / T) in float64, sorted most likely first, ties by id, the
first top_k, the shortest prefix reaching top_p) that pass that test, renormalized at temperature
T: the distribution a token is drawn from. The engine compares logits with max + ln(min_p)
instead; the reference works with probabilities, so the two agree only if both are right.
"""
import json, os
import numpy as np

GOLD = os.path.dirname(os.path.abspath(__file__))


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def distribution(logits, s):
    x = np.array(logits, dtype=np.float64)
    p = softmax(x / s["temperature"])
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    if s["top_k"] > 0:
        order = order[: s["top_k"]]
    if s["top_p"] < 1:
        kept, total = [], 0.0
        for i in order:
            kept.append(i)
            total += p[i]
            if total >= np.float32(s["top_p"]):
                break
        order = kept
    if s["min_p"] > 0:
        p1 = softmax(x)
        order = [i for i in order if p1[i] >= np.float32(s["min_p"]) * p1.max()]
    total = sum(p[i] for i in order)
    return [[i, float(p[i] / total)] for i in order]


def cases():
    rng = np.random.default_rng(26)
    logits = [round(float(v), 3) for v in rng.normal(0, 2, 24)]
    base = dict(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0)
    settings = [
        {"min_p": 0.05}, {"min_p": 0.1}, {"min_p": 0.3}, {"min_p": 0.9}, {"min_p": 1.0},
        {"min_p": 0.1, "temperature": 0.5}, {"min_p": 0.1, "temperature": 2.0},
        {"min_p": 0.05, "top_k": 3}, {"min_p": 0.02, "top_p": 0.8}, {"min_p": 0.2, "top_p": 0.95, "temperature": 1.5},
    ]
    out = [{"settings": dict(base, **e), "logits": logits} for e in settings]
    # Thresholds within 0.02 on either side of a probability ratio: probabilities 0.5, 0.26,
    # 0.14, 0.1 have ratios 0.52, 0.28 and 0.2 to the largest.
    ratios = [float(np.log(v)) for v in (0.5, 0.26, 0.14, 0.1)]
    for m in (0.18, 0.22, 0.26, 0.30, 0.50, 0.54):
        out.append({"settings": dict(base, min_p=m), "logits": ratios})
    for c in out:
        c["distribution"] = distribution(c["logits"], c["settings"])
    return out


def main():
    with open(os.path.join(GOLD, "min_p.json"), "w") as f:
        json.dump({"cases": cases()}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
