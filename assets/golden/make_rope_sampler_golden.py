#!/usr/bin/python3
"""Golden values for Llama 3.1's RoPE scaling and for the sampler, from references that share no
code with the engine. Run with Debian's python3 (PyTorch 1.13): /usr/bin/python3 this_file.

rope_scaling.json: for head_dim 128, theta 500000 and scale factors 8 (Llama 3.1) and 32
(Llama 3.2 1B/3B): the 64 scaled frequencies (reference_model.apply_scaling, Meta's formula
in float32 torch arithmetic), and q/k rotated at positions start..start+3 by
reference_model.apply_rotary_emb (bf16 in, complex64 rotation, bf16 out), q and k drawn from a
seeded generator and rounded to bf16 (so they are exact in the JSON).

sampler.json: cases of logits, a token history and settings, with what a plain numpy reference
of these semantics gives:
  1. penalties (llama.cpp's penalties sampler, first in its chain): over the last repeat_last_n
     tokens of the history (all with -1, none with 0), a token seen c times gets
     logit = logit * repeat if logit <= 0 else logit / repeat, then logit -= c * freq + presence
     (float32);
  2. greedy (temperature 0): the argmax of the penalized logits;
  3. otherwise softmax(penalized / temperature) in float64, sorted most likely first (ties by id),
     the first top_k (0: all), then the shortest prefix whose probability reaches top_p (at least
     one token), renormalized: the distribution a token is drawn from.
"""
import json, os, sys
import numpy as np
import torch

GOLD = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(GOLD))
from reference_model import apply_rotary_emb, apply_scaling, precompute_freqs_cis

HEAD_DIM, THETA = 128, 500000.0


def rope_case(scale_factor, start, seed):
    plain = 1.0 / (THETA ** (torch.arange(0, HEAD_DIM, 2)[: HEAD_DIM // 2].float() / HEAD_DIM))
    freqs_cis = precompute_freqs_cis(HEAD_DIM, start + 4, THETA, use_scaled=True, scale_factor=scale_factor)
    scaled = apply_scaling(plain, scale_factor)
    # Self-check: at position 1 the rotation angle is the scaled frequency itself.
    assert torch.allclose(freqs_cis[1].angle(), scaled, rtol=1e-6, atol=0)
    g = torch.Generator().manual_seed(seed)
    xq = torch.randn(1, 4, 2, HEAD_DIM, generator=g).to(torch.bfloat16)  # [batch, seq, heads, head_dim]
    xk = torch.randn(1, 4, 1, HEAD_DIM, generator=g).to(torch.bfloat16)
    q, k = apply_rotary_emb(xq, xk, freqs_cis[start:start + 4])
    flat = lambda t: [float(v) for v in t.float().flatten()]
    return {"scale_factor": scale_factor, "head_dim": HEAD_DIM, "theta": THETA, "start_pos": start,
            "plain_freqs": flat(plain), "scaled_freqs": flat(scaled),
            "xq_shape": [4, 2, HEAD_DIM], "xk_shape": [4, 1, HEAD_DIM],
            "xq": flat(xq), "xk": flat(xk), "q_rotated": flat(q), "k_rotated": flat(k)}


def penalize(logits, history, s):
    out = np.array(logits, dtype=np.float32)
    n = s["repeat_last_n"]
    window = [] if n == 0 else history if n == -1 else history[-n:]
    for tok in sorted(set(window)):
        c = np.float32(window.count(tok))
        x = out[tok]
        x = x * np.float32(s["repeat_penalty"]) if x <= 0 else x / np.float32(s["repeat_penalty"])
        out[tok] = np.float32(x - (c * np.float32(s["frequency_penalty"]) + np.float32(s["presence_penalty"])))
    return out


def distribution(penalized, s):
    if s["temperature"] <= 0:
        return [[int(np.argmax(penalized)), 1.0]]
    z = penalized.astype(np.float64) / np.float64(np.float32(s["temperature"]))
    e = np.exp(z - z.max())
    p = e / e.sum()
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
    total = sum(p[i] for i in order)
    return [[i, float(p[i] / total)] for i in order]


def sampler_cases():
    rng = np.random.default_rng(11)
    logits = [round(float(v), 3) for v in rng.normal(0, 2, 16)]
    logits[3], logits[7] = -1.5, 0.0  # a negative and a zero logit among the repeated tokens
    history = [3, 5, 10, 7, 5, 9, 10, 5, 1, 12, 3, 5, 7, 0]
    base = dict(temperature=0.0, top_k=0, top_p=1.0, repeat_penalty=1.0, repeat_last_n=64, frequency_penalty=0.0,
                presence_penalty=0.0)
    settings = [
        {},  # no penalty, greedy
        {"repeat_penalty": 1.3},
        {"repeat_penalty": 1.3, "repeat_last_n": 4},
        {"repeat_penalty": 0.8, "repeat_last_n": -1},
        {"frequency_penalty": 0.5},
        {"presence_penalty": 0.75},
        {"repeat_penalty": 1.1, "frequency_penalty": 0.2, "presence_penalty": 0.3, "repeat_last_n": 6},
        {"repeat_penalty": 2.0, "repeat_last_n": 0},
        {"temperature": 1.0},
        {"temperature": 0.7, "top_k": 5},
        {"temperature": 1.0, "top_p": 0.5},
        {"temperature": 1.3, "top_p": 0.9},
        {"temperature": 0.8, "top_k": 6, "top_p": 0.75, "repeat_penalty": 1.2, "frequency_penalty": 0.1},
        {"temperature": 1.0, "top_p": 0.8, "presence_penalty": 1.0, "repeat_last_n": 8},
    ]
    cases = []
    for extra in settings:
        s = dict(base, **extra)
        pen = penalize(logits, history, s)
        cases.append({"settings": s, "logits": logits, "history": history,
                      "penalized": [float(v) for v in pen], "distribution": distribution(pen, s)})
    # The top-p boundary within 0.05 on either side of the cumulative sums 0.4, 0.7, 0.9, 1.0
    # (probabilities 0.4, 0.3, 0.2, 0.1): a cutoff moved by 0.05 keeps a different set.
    quarter = [float(np.log(v)) for v in (0.4, 0.3, 0.2, 0.1)]
    for p in (0.38, 0.42, 0.68, 0.72, 0.88, 0.93):
        s = dict(base, temperature=1.0, top_p=p)
        pen = penalize(quarter, [], s)
        cases.append({"settings": s, "logits": quarter, "history": [], "penalized": [float(v) for v in pen],
                      "distribution": distribution(pen, s)})
    return cases


def main():
    with open(os.path.join(GOLD, "rope_scaling.json"), "w") as f:
        json.dump({"cases": [rope_case(8, 5000, 1), rope_case(32, 30000, 2)]}, f, separators=(",", ":"))
        f.write("\n")
    with open(os.path.join(GOLD, "sampler.json"), "w") as f:
        json.dump({"cases": sampler_cases()}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
