#!/usr/bin/python3
"""Checks one lab against the engine's own numbers for the bundled model (lab 8: a tiny model's
first training step; lab 10: the bundled model in Q4_0; lab 12: the merges tokenizer-train
learns): `chapters/labs/check.py N`, N from 1 to 12, checks chapters/labs/labN_*.py; `--solution
FILE` checks another file instead. Each lab is checked on its public case (the prompt "The cat
sat on the mat", the layer labs.md names; lab 12: two texts), then on a hidden variant drawn at
every check (another prompt, layer, position, matrix or text; `--seed` repeats a draw). Prints,
for each tensor, the first element that differs beyond the stated tolerance (a NaN or an infinity
of yours differs from any finite value), and exits 1 unless all agree."""
import argparse
import base64
import codecs
import glob
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labkit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = json.load(open(os.path.join(labkit.MODEL, "params.json")))
# The engine stores every stage's result in BF16, whose values in [2^e, 2^(e+1)) are 2^(e-7) apart:
# one rounding is worth up to 2^-8 (0.4%) of a value. These allow for a few roundings in a row,
# relative to the value (absolute below 1).
BF16_TOL = 1e-2
# The hidden variants draw their prompt from these (the first is the public one, "The cat sat
# on the mat", whose numbers labs.md quotes), their layer from all eight.
PROMPTS = [labkit.PROMPT, "In the beginning God created the heaven and the earth.",
           "And the LORD spake unto Moses, saying,", "Jude, the servant of Jesus Christ, and brother of James",
           "Beloved, when I gave all diligence to write unto you", "Mercy unto you, and peace, and love, be multiplied.",
           "For there are certain men crept in unawares", "And God said, Let there be light: and there was light."]


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    return module


def run(prompt, stops, n=1):
    """A --step run of the bundled model on `prompt`, generating n tokens (n - 1 decode steps)."""
    return labkit.stepper_tensors(["--model", labkit.MODEL, "-q", "--step", "-n", str(n), "--prompt", prompt], stops)


def batch_run(prompt, ubatch, stops):
    """`batch --step` on one prompt split into ubatches of `ubatch` tokens, then one decode step:
    forward passes that start past position 0 with several tokens (see passes())."""
    return labkit.stepper_tensors(["batch", "--model", labkit.MODEL, "-q", "--step", "-n", "2", "-p", prompt,
                                   "--ubatch", str(ubatch)], stops)


def token_count(prompt):
    return len(labkit.prompt_tokens(prompt))


def passes(prompt, ubatch):
    """batch_run's forward passes: (start_pos, tokens) of each ubatch of the prompt, then of the decode step."""
    n = token_count(prompt)
    return [(start, min(ubatch, n - start)) for start in range(0, n, ubatch)] + [(n, 1)]


def positions(start, rows):
    return f"position {start}" if rows == 1 else f"positions {start}-{start + rows - 1}"


def lab1(m, rng):
    weights = labkit.load_weights()

    def one(prompt, layer, norm):
        # The norm's input: the block's input x for attention_norm, the residual h after attention for ffn_norm.
        source, name, result = ("block", "x", "normalizedX") if norm == "attention_norm" else ("attention_residual", "h", "normalizedH")
        n = token_count(prompt)
        x, want = run(prompt, [(source, layer, {name: (0, n)}), (norm, layer, {result: (0, n)})])
        yours = m.rms_norm(x[name], weights[f"layers.{layer - 1}.{norm}.weight"], PARAMS["norm_eps"])
        return labkit.compare(f"{result}, layer {layer}", labkit.bf16(yours), want[result], BF16_TOL)

    ok = one(labkit.PROMPT, 1, "attention_norm")
    prompt, layer, norm = rng.choice(PROMPTS[1:]), rng.randint(1, 8), rng.choice(["attention_norm", "ffn_norm"])
    hidden(f"prompt \"{prompt}\", {norm} of layer {layer}")
    return one(prompt, layer, norm) & ok


def every_pass(prompt, ubatch, before, after, check_pass):
    """batch_run's passes, each held at two stops, before(start, rows) and after(start, rows);
    check_pass(start, rows, found before, found after) checks one. True when every pass agrees."""
    steps = passes(prompt, ubatch)
    found = batch_run(prompt, ubatch, [stop for start, rows in steps for stop in (before(start, rows), after(start, rows))])
    return all([check_pass(start, rows, b, a) for (start, rows), b, a in zip(steps, found[0::2], found[1::2])])


def lab2(m, rng):
    def one(prompt, layer, ubatch):
        def stop(stage):
            return lambda start, rows: (stage, layer, {"xq": (rows, 8), "xk": (rows, 2)}, start)

        def check_pass(start, rows, before, after):
            return all([labkit.compare(f"{name} after RoPE, layer {layer}, {positions(start, rows)}",
                                       labkit.bf16(m.rope(before[name], start, PARAMS["rope_theta"])), after[name], BF16_TOL)
                        for name in ("xq", "xk")])
        return every_pass(prompt, ubatch, stop("reshape_heads"), stop("rotary"), check_pass)

    ok = one(labkit.PROMPT, 1, 4)
    prompt, layer, ubatch = rng.choice(PROMPTS[1:]), rng.randint(1, 8), rng.randint(2, 6)
    hidden(f"prompt \"{prompt}\" in ubatches of {ubatch} tokens, then a decode step; layer {layer}")
    return one(prompt, layer, ubatch) & ok


# The engine rounds the scores to BF16 before the softmax: a score of 30 moves by up to 0.06, its
# weight by 6%. Measured over the eight prompts and eight layers: a float64 softmax differs from the
# engine's output by up to 0.051 (0.031 when it rounds where the engine does); the wrong answers
# of tests/labs_reference/wrong by 0.29 and more.
LAB3_TOL = 8e-2


def lab3(m, rng):
    def one(prompt, layer, ubatch):
        def check_pass(start, rows, t, out):
            yours = np.stack([m.attention_head(t["xq"][h], t["keys"][h].T, t["values"][h], start) for h in range(8)])
            return labkit.compare(f"every head's output, layer {layer}, {positions(start, rows)}", labkit.bf16(yours), out["output"], LAB3_TOL)
        return every_pass(prompt, ubatch,
                          lambda start, rows: ("transposes", layer, {"xq": (8, rows), "keys": (8, 32), "values": (8, start + rows)}, start),
                          lambda start, rows: ("attention_values", layer, {"output": (8, rows)}, start), check_pass)

    ok = one(labkit.PROMPT, 2, 4)
    prompt, layer, ubatch = rng.choice(PROMPTS[1:]), rng.randint(1, 8), rng.randint(2, 6)
    hidden(f"prompt \"{prompt}\" in ubatches of {ubatch} tokens, then a decode step; layer {layer}")
    return one(prompt, layer, ubatch) & ok


def lab4(m, rng):
    n_rep = PARAMS["n_heads"] // PARAMS["n_kv_heads"]

    def one(prompt, layer):
        # The prefill's keys and values, then the decode step's: the cache read back, one row longer.
        n = token_count(prompt)
        stops = []
        for start, rows in ((0, n), (n, n + 1)):
            stops += [("cache_read", layer, {"keys": (rows, 2), "values": (rows, 2)}, start),
                      ("repeat_kv", layer, {"keys": (rows, 8), "values": (rows, 8)}, start)]
        found = run(prompt, stops, n=2)
        ok = True
        for start, before, after in zip((0, n), found[0::2], found[1::2]):
            for name in ("keys", "values"):
                ok &= labkit.compare(f"{name} after the repeat, layer {layer}, pass at position {start}",
                                     m.repeat_kv(before[name], n_rep), after[name], 0)
        return ok

    ok = one(labkit.PROMPT, 1)
    prompt, layer = rng.choice(PROMPTS[1:]), rng.randint(1, 8)
    hidden(f"prompt \"{prompt}\", layer {layer}")
    return one(prompt, layer) & ok


def lab5(m, rng):
    w = labkit.load_weights()

    def one(prompt, layer):
        n = token_count(prompt)
        x, out = run(prompt, [("ffn_norm", layer, {"normalizedH": (0, n)}), ("ffn_down", layer, {"output": (0, n)})])
        yours = m.swiglu(x["normalizedH"], *(w[f"layers.{layer - 1}.feed_forward.{n}.weight"] for n in ("w1", "w2", "w3")))
        return labkit.compare(f"the feed-forward's output, layer {layer}", labkit.bf16(yours), out["output"], 3 * BF16_TOL)

    ok = one(labkit.PROMPT, 3)
    prompt, layer = rng.choice(PROMPTS[1:]), rng.randint(1, 8)
    hidden(f"prompt \"{prompt}\", layer {layer}")
    return one(prompt, layer) & ok


def softmax_reference(z):
    """float64 softmax through the log of the sum (np.logaddexp), never exponentiating a large number."""
    z = np.asarray(z, dtype=np.float64)
    return np.exp(z - np.logaddexp.reduce(z))


# Where the kept prefix's sum lands within this of p (two tied logits at p = 0.5 sum to 0.5 give
# or take one rounding), whether it "reaches" p is the last bit of the sum: either cut is right.
TOP_P_TIE = 1e-9


def top_p_reference(probs, p):
    """Every right answer to top-p: one [(ids, renormalized probabilities)] per acceptable cut."""
    order = np.argsort(-probs, kind="stable")
    sums = np.cumsum(probs[order])
    keep = int(np.searchsorted(sums, p)) + 1  # the first prefix whose sum reaches p
    cuts = {keep} | {k for k in (keep - 1, keep + 1) if 1 <= k <= len(order) and abs(sums[k - 1] - p) <= TOP_P_TIE}
    answers = []
    for k in sorted(cuts):
        kept = order[:min(k, len(order))]
        answers.append(([int(i) for i in kept], probs[kept] / probs[kept].sum()))
    return answers


def lab6(m, rng):
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
    print(f"{checked} sampler cases checked")

    def one(prompt, temperature, p):
        # The bundled model's logits (the engine's, float32) at a temperature whose logits / T reach
        # the thousands for a small T: e^x overflows past x = 709 in float64 (88 in float32).
        n = token_count(prompt)
        logits = run(prompt, [("logits", 0, {"logits": (0, n)})])[0]["logits"][-1]
        want = softmax_reference(logits.astype(np.float64) / temperature)
        probs = np.asarray(m.probabilities(logits, temperature), dtype=np.float64)
        reference = "the float64 reference's"
        good = labkit.compare(f"probabilities after \"{prompt}\", temperature {temperature}", probs, want, 1e-6, theirs=reference)
        if not good:
            return False
        answers = top_p_reference(want, p)
        kept = m.top_p(probs, p)
        match = [(ids, ps) for ids, ps in answers if [int(i) for i, _ in kept] == ids]
        if not match:
            print(f"top-p {p} at temperature {temperature}: you keep tokens {[int(i) for i, _ in kept][:12]}, "
                  f"the reference {' or '.join(str(ids[:12]) for ids, _ in answers)}")
            return False
        ids, ps = match[0]
        return labkit.compare(f"top-p {p} at temperature {temperature}", [q for _, q in kept], ps, 1e-6, theirs=reference)

    ok &= one(labkit.PROMPT, 1.0, 0.9)
    ok &= one(labkit.PROMPT, 0.005, 0.9)  # logits / T up to about 1500
    prompt, temperature, p = rng.choice(PROMPTS[1:]), rng.choice([0.002, 0.01, 0.3, 0.7, 1.3]), rng.choice([0.5, 0.8, 0.95])
    hidden(f"prompt \"{prompt}\", temperature {temperature}, top-p {p}")
    return one(prompt, temperature, p) & ok


# Lab 7's logits go through eight blocks of BF16 roundings: a right answer that rounds elsewhere
# than the engine, or not at all, differs by a few BF16 steps of the row's largest logit, whatever
# the logit's own size (a small logit is a sum of large terms). So the tolerance is 2^-5 of each
# row's largest |logit| (4 to 8 steps), and the most likely token must agree where the engine's
# gap between its first two exceeds 4 steps: where it does not, rounding alone can swap them.
LAB7_TOL = 2.0 ** -5
LAB7_GAP_STEPS = 4


def lab7(m, rng):
    weights = labkit.load_weights()

    def one(prompt):
        tokens = labkit.prompt_tokens(prompt)
        logits = run(prompt, [("logits", 0, {"logits": (0, len(tokens))})])[0]["logits"]
        yours = m.forward(weights, PARAMS, tokens)
        if not labkit.compare(f"logits after \"{prompt}\"", yours, logits, LAB7_TOL, scaled="rows"):
            return False
        yours = np.asarray(yours)
        top2 = np.sort(logits, axis=-1)[:, -2:]
        step = 2.0 ** (np.floor(np.log2(np.abs(logits).max(axis=-1))) - 7)
        clear = top2[:, 1] - top2[:, 0] > LAB7_GAP_STEPS * step
        same = yours.argmax(-1) == logits.argmax(-1)
        print(f"the most likely next token agrees at {int(same[clear].sum())} of the {int(clear.sum())} positions whose top two are"
              f" more than {LAB7_GAP_STEPS} BF16 steps apart ({int(same.sum())} of all {len(tokens)})")
        return bool(same[clear].all())

    ok = one(labkit.PROMPT)
    prompt = rng.choice(PROMPTS[1:])
    hidden(f"prompt \"{prompt}\"")
    return one(prompt) & ok


def lab9(m, rng):
    w = labkit.load_weights()

    def one(prompt, layer, step):
        # A run of step + 1 tokens: the prefill, then `step` decode steps; the last one is checked.
        # Its cache_read holds the cache as the step leaves it: the rows before, and the new one.
        n = token_count(prompt)
        start = n + step - 1
        stops = []
        for pos in [0] + list(range(n, start + 1)):
            wanted = pos == start
            stops += [("attention_norm", layer, {"normalizedX": (0, 1)} if wanted else {}, pos),
                      ("cache_read", layer, {"keys": (start + 1, 2), "values": (start + 1, 2)} if wanted else {}, pos),
                      ("attention_wo", layer, {"output": (0, 1)} if wanted else {}, pos)]
        x, cache, out = run(prompt, stops, n=step + 1)[-3:]
        weights = {k: w[f"layers.{layer - 1}.attention.{k}.weight"] for k in ("wq", "wk", "wv", "wo")}
        output, keys, values = m.decode_attention(x["normalizedX"], weights, cache["keys"][:start], cache["values"][:start], start, PARAMS)
        where = f"layer {layer}, decode step at position {start}"
        ok = labkit.compare(f"the cache's keys after the step, {where}", labkit.bf16(keys), cache["keys"], BF16_TOL)
        ok &= labkit.compare(f"the cache's values after the step, {where}", labkit.bf16(values), cache["values"], BF16_TOL)
        return labkit.compare(f"attention's output (after wo), {where}", labkit.bf16(output), out["output"], 3 * BF16_TOL) & ok

    ok = one(labkit.PROMPT, 2, 1)
    prompt, layer, step = rng.choice(PROMPTS[1:]), rng.randint(1, 8), rng.randint(1, 4)
    hidden(f"prompt \"{prompt}\", layer {layer}, decode step {step}")
    return one(prompt, layer, step) & ok


# Lab 10's matrices: the checkpoint's name, the GGUF file's, and where the engine shows the
# product: (stage of the input, its tensor), (stage of the product, its tensor).
LAB10_MATRICES = {"wq": ("attn_q", ("attention_norm", "normalizedX"), ("qkv", "xq")),
                  "wk": ("attn_k", ("attention_norm", "normalizedX"), ("qkv", "xk")),
                  "wv": ("attn_v", ("attention_norm", "normalizedX"), ("qkv", "xv")),
                  "w1": ("ffn_gate", ("ffn_norm", "normalizedH"), ("ffn_gate", "h"))}
# The engine rounds x to 8 bits per block of 32 (step: the block's largest |x| / 127) before its
# integer products: measured over three prompts, eight layers and the four matrices, a float32
# product of the same weights differs by up to 1.3% of the row's largest value (a row whose x has
# an outlier loses the most); a wrong decoding by tens of percent.
LAB10_TOL = 3e-2


def lab10(m, rng):
    with tempfile.TemporaryDirectory() as out:
        # The bundled model in Q4_0, and the same file widened by the engine to F32: its decoding.
        q4, f32 = os.path.join(out, "q4_0.gguf"), os.path.join(out, "f32.gguf")
        for source, target, to in ((labkit.MODEL, q4, "gguf-q4_0"), (q4, f32, "gguf-f32")):
            subprocess.run([labkit.walkthrough(), "convert", "--model", source, "--to", to, "--out", target],
                           check=True, capture_output=True, cwd=labkit.ROOT)
        quantized, widened = labkit.gguf_tensors(q4), labkit.gguf_tensors(f32)

        def decode(name):
            kind, shape, raw = quantized[name]
            want = widened[name][2].view(np.float32)
            yours = m.dequantize_q4_0(raw.reshape(-1, 18))
            return labkit.compare(f"{name} decoded ({raw.size // 18} blocks)", yours, want, 0)

        def product(prompt, layer, matrix):
            gguf, (in_stage, in_name), (out_stage, out_name) = LAB10_MATRICES[matrix]
            kind, shape, raw = quantized[f"blk.{layer - 1}.{gguf}.weight"]
            n = token_count(prompt)
            argv = ["--model", q4, "-q", "--step", "-n", "1", "--prompt", prompt]
            x, want = labkit.stepper_tensors(argv, [(in_stage, layer, {in_name: (0, n)}), (out_stage, layer, {out_name: (0, n)})])
            yours = m.matmul_q4_0(x[in_name], raw.reshape(-1, 18), shape[1])
            return labkit.compare(f"x {matrix}^T, layer {layer}, the engine's Q4_0 product", yours, want[out_name], LAB10_TOL, scaled="rows")

        ok = decode("blk.0.attn_q.weight") & product(labkit.PROMPT, 1, "wq")
        names = [n for n, (kind, _, _) in quantized.items() if kind == 2]
        name, prompt, layer, matrix = rng.choice(names), rng.choice(PROMPTS[1:]), rng.randint(1, 8), rng.choice(list(LAB10_MATRICES))
        hidden(f"tensor {name}; prompt \"{prompt}\", {matrix} of layer {layer}")
        return decode(name) & product(prompt, layer, matrix) & ok


def lab11(m, rng):
    def one(prompts, parallel, ubatch, n, shift=False):
        argv = ["batch", "--model", labkit.MODEL, "-q", "--step", "-n", str(n), "--parallel", str(parallel), "--ubatch", str(ubatch)]
        # A context shift (chapter 16) in 32 cells frees cells and refills them: the cells then
        # hold positions out of order, and empty ones among them.
        argv += ["--max-seq-len", "32", "--context-shift"] if shift else []
        for p in prompts:
            argv += ["-p", p]
        # A first run passes every ubatch and says its size and its cells' (find_slot); the second
        # holds at each and prints them. The run starts paused at the first ubatch, which the
        # second run's first `c` leaves: it is not checked.
        first = subprocess.run([labkit.walkthrough(), *argv], input="b kv_slot\n" + "c\n" * 1000, capture_output=True, text=True, cwd=labkit.ROOT)
        sizes = [(int(t), int(kv)) for t, kv in re.findall(r"find_slot: n_tokens = (\d+) .* n_kv = (\d+)", first.stdout)][1:]
        stops = []
        for tokens, cells in sizes:
            stops += [("ubatch", 0, {"|": (0, 0)}), ("kv_slot", 0, {"cellPos": (0, 1), "cellSeqIds": (0, cells)}),
                      ("kv_mask", 0, {"mask": (0, tokens)})]
        found = labkit.stepper_tensors(argv, stops)
        ok = True
        for k, (tokens, cells) in enumerate(sizes):
            table, slot, mask = found[3 * k:3 * k + 3]
            rows = [line.split() for line in table["|"] if re.match(r"^\s*\d+\s", line)]
            token_pos = np.array([int(r[2]) for r in rows])
            token_seqs = [[int(q) for q in r[3].split(",")] for r in rows]
            cell_pos = slot["cellPos"][0][:cells].astype(int)
            cell_seqs = [[int(q) for q in row if q >= 0] for row in slot["cellSeqIds"]]
            yours = m.kv_mask(token_pos, token_seqs, cell_pos, cell_seqs)
            seqs = sorted({q for t in token_seqs for q in t})
            ok &= labkit.compare(f"ubatch {k + 1}: {tokens} token{'s' if tokens > 1 else ''} of sequences {seqs}, {cells} cells", yours, mask["mask"], 0)
        return ok

    ok = one(PROMPTS[:3], 2, 5, 3)
    print("with a context shift:")
    ok &= one(PROMPTS[:2], 2, 512, 12, shift=True)
    prompts = rng.sample(PROMPTS, rng.randint(2, 4))
    parallel, ubatch, shift = rng.randint(1, 3), rng.randint(2, 8), rng.choice([False, True])
    n = rng.randint(10, 14) if shift else rng.randint(2, 4)
    hidden(f"{len(prompts)} prompts, --parallel {parallel} --ubatch {ubatch} -n {n}{' with a context shift in 32 cells' if shift else ''}")
    return one(prompts, parallel, ubatch, n, shift) & ok


# Lab 12's texts. The first public one is short and made to hold what a merge loop can get wrong:
# several characters of two or three UTF-8 bytes, runs of one byte ("aaa", "!!!", "000") in which a
# pair overlaps itself, pairs that occur twice in one piece ("abab"), and many ties. The second is
# Jude's text (the King James Version, as the bundled tokenizer's corpus). The hidden variant
# draws a slice of one of these files, and a number of merges.
LAB12_EDGES = ("Café, café! The naïve café — “aaa”, said he; “aaaa…” Hmmm!!! zzz zzzz... 1000 2000 3000 abab baba\n"
               "Déjà vu: a café’s crème brûlée, à la carte — ½ of ¾. Ah!!! Ahh... aaaaa, ababab 10000 500!\n")
LAB12_SOURCES = ["assets/text/jude.txt", "assets/samples.txt", "chapters/08-tokenization.md", "chapters/12-utf8-streaming.md",
                 "chapters/14-sentencepiece-llama2.md", "chapters/04-bfloat16.md", "chapters/README.md"]


def shown(token):
    """Token bytes as tokenizer-train prints them (Tokenizer::bytesForDisplay): whole UTF-8
    characters as they are, but \\n, \\r, \\t and \\xNN for control characters, and <0xNN> for
    each byte of a character split across tokens (the bytes Python's decoder rejects together)."""
    text = token.decode("utf-8", "lab12_bytes")
    return "".join({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c) or (f"\\x{ord(c):02X}" if ord(c) < 0x20 or ord(c) == 0x7F else c)
                   for c in text)


codecs.register_error("lab12_bytes", lambda e: ("".join(f"<0x{b:02X}>" for b in e.object[e.start:e.end]), e.end))


def lab12(m, rng):
    def one(what, text, n):
        with tempfile.TemporaryDirectory() as out:
            path, model = os.path.join(out, "text.txt"), os.path.join(out, "tokenizer.model")
            open(path, "w", encoding="utf-8").write(text)
            run = subprocess.run([labkit.walkthrough(), "tokenizer-train", "--text", path, "--out", model, "--vocab", str(256 + n),
                                  "--show-merges", str(n)], capture_output=True, text=True, cwd=labkit.ROOT)
            if run.returncode != 0:
                raise SystemExit(f"tokenizer-train failed on {what}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
            # The merged tokens' bytes exactly, by rank, from the tiktoken file; the printed lines
            # say where each was split and how often the pair occurred.
            ranks = [base64.b64decode(line.split()[0]) for line in open(model)]
        lines = [line for line in run.stdout.splitlines() if line.startswith("merge ")]
        yours = list(m.learn_merges(labkit.pretokenize(text), n))
        for k, line in enumerate(lines):
            if k >= len(yours):
                print(f"{what}: you learned {len(yours)} merges, the engine {n}; its merge {k + 1}: {line}")
                return False
            left, right, count = yours[k]
            if not isinstance(left, bytes) or not isinstance(right, bytes):
                print(f"{what}, merge {k + 1}: your tokens are {type(left).__name__} and {type(right).__name__}, not bytes")
                return False
            mine = f"merge {k + 1}: \"{shown(left)}\" + \"{shown(right)}\" -> \"{shown(left + right)}\", rank {256 + k}, count {count}"
            if mine != line or left + right != ranks[256 + k]:
                agree = f"merges 1-{k} agree; " if k > 1 else "merge 1 agrees; " if k else ""
                print(f"{what}: {agree}merge {k + 1} differs:\n  yours:        {mine}\n  the engine's: {line}")
                return False
        if len(yours) != len(lines):
            print(f"{what}: you learned {len(yours)} merges, the engine {len(lines)}")
            return False
        print(f"{what}: all {n} merges agree (ranks 256-{255 + n}, their bytes and counts)")
        return True

    ok = one("the edge cases of check.py", LAB12_EDGES, 91)  # every merge the text allows
    ok &= one("assets/text/jude.txt", open(os.path.join(labkit.ROOT, "assets", "text", "jude.txt"), encoding="utf-8").read(), 60)
    source = rng.choice(LAB12_SOURCES)
    text = open(os.path.join(labkit.ROOT, source), encoding="utf-8").read()
    length = min(rng.randint(1500, 4000), len(text))
    start = rng.randrange(len(text) - length + 1)
    n = rng.randint(30, 150)
    hidden(f"{source}, characters {start}-{start + length}, {n} merges")
    return one(f"{source} [{start}:{start + length}]", text[start:start + length], n) & ok


def hidden(what):
    print(f"hidden variant: {what}")


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
    layer = layer or random.choice([1, 2])
    print(f"variant: seed {seed}, block {layer} (check.py 8 --seed {seed} --layer {layer} checks it again)")
    with tempfile.TemporaryDirectory() as out:
        argv = ["train", "--text", os.path.join(labkit.ROOT, "assets", "text", "jude.txt"), "--out", out, "--force",
                "--seed", str(seed), "--products", "f32", "--step", *LAB8_SHAPE]  # F32 products: the lab's NumPy is F32
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
    ap.add_argument("lab", type=int, choices=range(1, 13))
    ap.add_argument("--solution", help="the file to check (default: chapters/labs/labN_*.py)")
    ap.add_argument("--seed", type=int, help="the hidden variant's draw (lab 8: the training run's seed); default: a new one each time")
    ap.add_argument("--layer", type=int, choices=(1, 2), help="lab 8: the block checked (default: either, drawn)")
    a = ap.parse_args()
    path = a.solution or glob.glob(os.path.join(HERE, f"lab{a.lab}_*.py"))[0]
    seed = a.seed or random.randrange(1, 1 << 20)
    if a.lab != 8:
        print(f"variant {seed} (check.py {a.lab} --seed {seed} checks the same hidden variant again)")
    try:
        module = load(path)
        ok = lab8(module, seed, a.layer) if a.lab == 8 else globals()[f"lab{a.lab}"](module, random.Random(seed))
    except NotImplementedError as e:
        print(f"{os.path.basename(path)}: not written yet ({e})")
        ok = False
    except Exception as e:  # noqa: BLE001 - a student's error is a failed check, said where it happened
        place = next((f for f in reversed(traceback.extract_tb(e.__traceback__)) if f.filename == os.path.abspath(path)), None)
        if place:
            print(f"your code raised {type(e).__name__} at {os.path.basename(path)}:{place.lineno}: {e}")
        else:
            print(f"the check could not use your result: {type(e).__name__}: {e}")
        ok = False
    print(f"lab {a.lab}: {'PASS' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
