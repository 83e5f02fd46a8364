#!/usr/bin/python3
"""Checks one lab against the engine's own numbers for the bundled model and the prompt
"The cat sat on the mat" (9 tokens; lab 8: a tiny model's first training step):
`chapters/labs/check.py N`, N from 1 to 8, checks chapters/labs/labN_*.py; `--solution FILE`
checks another file instead. Prints, for each tensor,
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


# Lab 8's tiny model: two blocks, 4 query heads over 2 KV heads, trained on Jude's text in windows
# of 8 tokens. Its seed (the random weights and the window) and the block checked are drawn anew
# on every check, so an answer fitted to one draw fails the next.
LAB8_SHAPE = ["--dim", "64", "--n-layers", "2", "--n-heads", "4", "--n-kv-heads", "2", "--multiple-of", "32",
              "--seq-len", "8", "--batch", "1", "--steps", "1"]
LAB8_WEIGHTS = {"attention_norm": "attention_norm", "wq": "attention.wq", "wk": "attention.wk", "wv": "attention.wv",
                "wo": "attention.wo", "ffn_norm": "ffn_norm", "w1": "feed_forward.w1", "w2": "feed_forward.w2",
                "w3": "feed_forward.w3"}
# Where the engine shows each gradient of block `layer`'s backward pass, and its name there.
LAB8_GRADIENTS = [("ffn_down_backward", {"w2": "dFfnDown"}), ("ffn_gate_up_backward", {"w1": "dFfnGate", "w3": "dFfnUp"}),
                  ("ffn_norm_backward", {"dh": "dH", "ffn_norm": "dFfnNorm"}), ("attention_wo_backward", {"wo": "dAttnWo"}),
                  ("qkv_backward", {"wq": "dAttnWq", "wk": "dAttnWk", "wv": "dAttnWv"}),
                  ("attention_norm_backward", {"dx": "dX", "attention_norm": "dAttnNorm"})]


def lab8(m, seed, layer):
    import random
    import tempfile
    seed = seed or random.randrange(1, 1 << 20)
    layer = layer or random.choice([1, 2])
    print(f"variant: seed {seed}, block {layer} (check.py 8 --seed {seed} --layer {layer} checks it again)")
    with tempfile.TemporaryDirectory() as out:
        argv = ["train", "--text", os.path.join(labkit.ROOT, "assets", "text", "jude.txt"), "--out", out, "--force",
                "--seed", str(seed), "--step", *LAB8_SHAPE]
        params = json.load(open(os.path.join(labkit.ROOT, "assets", "model", "params.json")))
        params.update({"dim": 64, "n_heads": 4, "n_kv_heads": 2})
        shapes = {"dFfnDown": (0, 64), "dFfnGate": (0, 224), "dFfnUp": (0, 224), "dH": (0, 8), "dFfnNorm": (0, 1),
                  "dAttnWo": (0, 64), "dAttnWq": (0, 64), "dAttnWk": (0, 32), "dAttnWv": (0, 32), "dX": (0, 8), "dAttnNorm": (0, 1)}
        # The gradient reaching the block's output: the final norm's for the last block, else the
        # one the block above passed down.
        above = ("output_norm_backward", 0, {"dCurrentTensor": (0, 8)}) if layer == 2 else ("attention_norm_backward", layer + 1, {"dX": (0, 8)})
        stops = [("block", layer, {"x": (0, 8)}), above] + [(stage, layer, {n: shapes[n] for n in names.values()}) for stage, names in LAB8_GRADIENTS]
        found = labkit.stepper_tensors(argv, stops)
        # The run was stopped inside its first step: the checkpoint holds the weights it started from.
        weights = labkit.load_weights(os.path.join(out, "consolidated.00.pth"))
    x, d_out = found[0]["x"], next(iter(found[1].values()))
    w = {k: weights[f"layers.{layer - 1}.{name}.weight"] for k, name in LAB8_WEIGHTS.items()}
    yours = m.block_backward(x, w, d_out, params)
    ok = True
    for (stage, names), engine in zip(LAB8_GRADIENTS, found[2:]):
        for key, name in names.items():
            want = engine[name].reshape(-1) if name in ("dFfnNorm", "dAttnNorm") else engine[name]
            if key not in yours:
                print(f"{name}: your result has no '{key}'")
                ok = False
                continue
            ok &= labkit.compare(f"{name} ({key}), block {layer}", np.asarray(yours[key]), want, 1e-3, scaled=True)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lab", type=int, choices=range(1, 9))
    ap.add_argument("--solution", help="the file to check (default: chapters/labs/labN_*.py)")
    ap.add_argument("--seed", type=int, help="lab 8: the variant's seed (default: a new one each time)")
    ap.add_argument("--layer", type=int, choices=(1, 2), help="lab 8: the block checked (default: either, drawn)")
    a = ap.parse_args()
    path = a.solution or glob.glob(os.path.join(HERE, f"lab{a.lab}_*.py"))[0]
    try:
        module = load(path)
        ok = lab8(module, a.seed, a.layer) if a.lab == 8 else globals()[f"lab{a.lab}"](module)
    except NotImplementedError as e:
        print(f"{os.path.basename(path)}: not written yet ({e})")
        ok = False
    print(f"lab {a.lab}: {'PASS' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
