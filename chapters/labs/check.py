#!/usr/bin/python3
"""Checks one lab against the engine's own numbers for the bundled model and the prompt
"The cat sat on the mat" (9 tokens): `chapters/labs/check.py N`, N from 1 to 7, checks
chapters/labs/labN_*.py; `--solution FILE` checks another file instead. Prints, for each tensor,
the first element that differs beyond the stated tolerance, and exits 1 unless all agree."""
import argparse
import glob
import importlib.util
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labkit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = json.load(open(os.path.join(labkit.MODEL, "params.json")))
# The engine stores every stage's result in BF16, whose spacing is 2^-8 of a value: one rounding
# apart is a relative difference of 0.4%; these allow for a few roundings in a row.
BF16_TOL = 1e-2


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    return module


def lab1(m):
    x = labkit.engine_tensors("block", 1, {"x": (0, 9)})["x"]
    want = labkit.engine_tensors("attention_norm", 1, {"normalizedX": (0, 9)})["normalizedX"]
    weight = labkit.load_weights()["layers.0.attention_norm.weight"]
    yours = m.rms_norm(x, weight, PARAMS["norm_eps"])
    return labkit.compare("normalizedX, layer 1", labkit.bf16(yours), want, BF16_TOL)


def lab2(m):
    before = labkit.engine_tensors("reshape_heads", 1, {"xq": (9, 8), "xk": (9, 2)})
    after = labkit.engine_tensors("rotary", 1, {"xq": (9, 8), "xk": (9, 2)})
    ok = True
    for name in ("xq", "xk"):
        yours = m.rope(before[name], 0, PARAMS["rope_theta"])
        ok &= labkit.compare(f"{name} after RoPE, layer 1", labkit.bf16(yours), after[name], BF16_TOL)
    return ok


def lab3(m):
    t = labkit.engine_tensors("transposes", 2, {"xq": (8, 9), "keys": (8, 32), "values": (8, 9)})
    out = labkit.engine_tensors("attention_values", 2, {"output": (8, 9)})["output"]
    yours = np.stack([m.attention_head(t["xq"][h], t["keys"][h].T, t["values"][h], 0) for h in range(8)])
    return labkit.compare("every head's output, layer 2", labkit.bf16(yours), out, 2 * BF16_TOL)


def lab4(m):
    before = labkit.engine_tensors("cache_read", 1, {"keys": (9, 2), "values": (9, 2)})
    after = labkit.engine_tensors("repeat_kv", 1, {"keys": (9, 8), "values": (9, 8)})
    n_rep = PARAMS["n_heads"] // PARAMS["n_kv_heads"]
    return all([labkit.compare(f"{n} after the repeat", m.repeat_kv(before[n], n_rep), after[n], 0) for n in ("keys", "values")])


def lab5(m):
    w = labkit.load_weights()
    x = labkit.engine_tensors("ffn_norm", 3, {"normalizedH": (0, 9)})["normalizedH"]
    out = labkit.engine_tensors("ffn_down", 3, {"output": (0, 9)})["output"]
    yours = m.swiglu(x, *(w[f"layers.2.feed_forward.{n}.weight"] for n in ("w1", "w2", "w3")))
    return labkit.compare("the feed-forward's output, layer 3", labkit.bf16(yours), out, 3 * BF16_TOL)


def lab6(m):
    ok = True
    # The engine's sampler reproduces these cases (tests/generate_sampler_golden_test.cpp): the
    # ones without penalties or top-k, drawn from, are checked here.
    cases = json.load(open(os.path.join(labkit.ROOT, "assets", "golden", "sampler.json")))["cases"]
    checked = 0
    for c in cases:
        s = c["settings"]
        if s["temperature"] <= 0 or s["top_k"] or s["repeat_penalty"] != 1 or s["frequency_penalty"] or s["presence_penalty"]:
            continue
        kept = m.top_p(m.probabilities(np.array(c["logits"], dtype=np.float32), s["temperature"]), s["top_p"])
        want = c["distribution"]
        if [int(i) for i, _ in kept] != [i for i, _ in want]:
            print(f"temperature {s['temperature']}, top-p {s['top_p']}: you keep tokens {[int(i) for i, _ in kept]}, "
                  f"the engine {[i for i, _ in want]}")
            ok = False
            continue
        ok &= labkit.compare(f"temperature {s['temperature']}, top-p {s['top_p']}", [p for _, p in kept], [p for _, p in want], 1e-5)
        checked += 1
    # And the bundled model's own logits: the stepper's `top 10` (temperature 1).
    logits = labkit.engine_tensors("logits", 0, {"logits": (0, 9)})["logits"][-1]
    probs = m.probabilities(logits, 1.0)
    print(f"{checked} sampler cases checked; the model's next-token probabilities after \"{labkit.PROMPT}\":")
    ok &= labkit.compare("probabilities, temperature 1", np.sum(probs), 1.0, 1e-5)
    order = np.argsort(-probs, kind="stable")[:3]
    print("  most likely ids:", [int(i) for i in order], "probabilities:", [round(float(probs[i]), 4) for i in order])
    return ok


def lab7(m):
    tokens = labkit.engine_tensors("tokens_tensor", 0, {"tokens": (0, 1)})["tokens"][0].astype(int)
    tokens = tokens[tokens >= 0]  # the tensor has a row per position of the context; -1 marks unused ones
    logits = labkit.engine_tensors("logits", 0, {"logits": (0, 9)})["logits"]
    yours = np.asarray(m.forward(labkit.load_weights(), PARAMS, list(tokens)))
    ok = labkit.compare("logits of every position", yours, logits, 0.05)
    same = int((yours.argmax(-1) == logits.argmax(-1)).sum())
    print(f"the most likely next token agrees at {same} of {len(tokens)} positions")
    return ok and same == len(tokens)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lab", type=int, choices=range(1, 8))
    ap.add_argument("--solution", help="the file to check (default: chapters/labs/labN_*.py)")
    a = ap.parse_args()
    path = a.solution or glob.glob(os.path.join(HERE, f"lab{a.lab}_*.py"))[0]
    try:
        ok = globals()[f"lab{a.lab}"](load(path))
    except NotImplementedError as e:
        print(f"{os.path.basename(path)}: not written yet ({e})")
        ok = False
    print(f"lab {a.lab}: {'PASS' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
