#!/usr/bin/python3
"""Greedy text of this engine against llama.cpp's tools (issue 25, item 4).

Results in docs/fidelity.md ("Same text as llama.cpp"). Python's standard library only.

  A. llama2.c files converted by llama.cpp's llama-convert-llama2c-to-ggml (with the fixtures'
     tokenizer.bin as its vocabulary): the engine's greedy tokens on the GGUF must be those it
     generates from the .bin, token for token, to the end of the converter's 128-position context;
     llama.cpp's llama-simple on the same GGUF is compared too.
  B. GGUF files quantized by llama.cpp's llama-quantize (Q8_0, Q4_0, Q4_K_M, Q6_K) from F32 GGUF
     files that `convert` writes of the bundled model and of a TinyLlama-shaped synthetic model:
     the engine's greedy text against llama-simple's (llama.cpp's defaults: the KV cache in F16)
     and against llama-cli's with the KV cache in F32 (-ctk f32 -ctv f32, --temp 0), 8 prompts x
     64 tokens. Where they part, the token where they part and the engine's two best logits there
     (the stepper's `top` at that step's logits stage), and the rank of llama.cpp's token among
     the engine's 20 best, show whether it is a near-tie.

Usage: scripts/compare-llamacpp.py LLAMA_CPP_BUILD_DIR [--walkthrough BIN] [--work DIR] [--parts ab]
                                  [--reference llama-simple|"llama-cli, F32 KV cache"]...
                                  [--model bundled|tinyllama]... [--quant Q8_0|Q4_0|Q4_K_M|Q6_K]...
  LLAMA_CPP_BUILD_DIR  a llama.cpp build (bin/llama-simple, bin/llama-cli, bin/llama-quantize,
                       bin/llama-convert-llama2c-to-ggml); measured with c392e5094
  --walkthrough BIN    the engine to test (default build/walkthrough/llama-walkthrough); the GGUF
                       files are always written by the default build, so an older engine can be
                       compared on the very same files
  --work DIR           where the converted files go (default /tmp/compare-llamacpp; reused if there)
Exit status 0 when part A is identical everywhere (part B's divergences are reported, not failed).
"""
import argparse
import os
import re
import struct
import subprocess
import sys
from array import array

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fixtures = os.path.join(repo, "tests", "fixtures", "llama2c")

# Part B's prompts: the bundled model's own register (it learned the King James Bible) and plain text.
PROMPTS = [
    "In the beginning God created",
    "And the LORD spake unto Moses, saying",
    "The cat sat",
    "Blessed are the meek",
    "Once upon a time",
    "And it came to pass, when the king",
    "The quick brown fox jumps over",
    "Then said Jesus unto them",
]
QUANTS = ["Q8_0", "Q4_0", "Q4_K_M", "Q6_K"]
N_TOKENS = 64
CONVERTER_CONTEXT = 128  # llama-convert-llama2c-to-ggml writes llama.context_length 128


def run(cmd, stdin=None, check=True):
    p = subprocess.run(cmd, input=stdin, capture_output=True)
    if check and p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode(errors='replace')[-2000:]}")
    return p


def unescape_fmt(s):
    """Bytes of a string printed by fmt's {:?}: \\n \\t \\r \\" \\' \\\\, \\u{HEX} and \\xHH (a byte)."""
    out, i = bytearray(), 0
    simple = {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "'": b"'", "\\": b"\\"}
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = s[i + 1]
        if e in simple:
            out += simple[e]
            i += 2
        elif e == "x":
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        elif e == "u":
            j = s.index("}", i)
            out += chr(int(s[i + 3:j], 16)).encode("utf-8")
            i = j + 1
        else:
            raise ValueError(f"unknown escape \\{e} in {s!r}")
    return bytes(out)


PIECE = r'"((?:[^"\\]|\\.)*)"'


def from_display(s):
    """Bytes of a piece as Tokenizer::bytesForDisplay shows it (the prompt's pieces in the debug
    log, the stepper's `top`): \\n \\r \\t, \\xHH for other control bytes, <0xHH> for part of a character."""
    s = re.sub(r"<0x([0-9A-F]{2})>", lambda m: "\\x" + m.group(1), s)
    out, i = bytearray(), 0
    while i < len(s):
        if s.startswith("\\x", i) and re.fullmatch(r"[0-9A-F]{2}", s[i + 2:i + 4]):
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        elif s[i] == "\\" and s[i + 1:i + 2] in ("n", "r", "t"):
            out += {"n": b"\n", "r": b"\r", "t": b"\t"}[s[i + 1]]
            i += 2
        else:
            out += s[i].encode("utf-8", "surrogateescape")
            i += 1
    return bytes(out)


class OurRun:
    """One greedy run of the engine: the prompt's pieces and each generated token (id, bytes)."""

    def __init__(self, walkthrough, model, prompt, n, extra=()):
        log = os.path.join(args.work, f"run-{os.getpid()}.log")
        run([walkthrough, "-q", "--model", model, "-p", prompt, "-n", str(n), "--threads", "2",
             "--debug-log", log, *extra])
        self.prompt_pieces, self.tokens = b"", []
        with open(log, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                if "Token pieces: " in line and not self.tokens and not self.prompt_pieces:
                    body = line.split("Token pieces: ", 1)[1].rsplit(" (", 1)[0]
                    self.prompt_pieces = b"".join(from_display(p) for p in re.findall(r'"(.*?)"(?= "|$)', body))
                m = re.search(r"Sampled next token (\d+) " + PIECE, line)
                if m:
                    self.tokens.append((int(m.group(1)), unescape_fmt(m.group(2))))
        self.text = b"".join(piece for _, piece in self.tokens)

    def token_at_byte(self, offset):
        end = 0
        for k, (_, piece) in enumerate(self.tokens):
            end += len(piece)
            if offset < end:
                return k
        return len(self.tokens)


def top_logits(walkthrough, model, prompt, step, theirs):
    """The engine's two best logits at generated token `step` (0 = the prefill's), from the stepper's
    `top` at that step's logits stage, and where llama.cpp's token (the longest of the engine's 20
    best pieces that begins `theirs`, llama.cpp's text from there on) ranks among them."""
    script = "b logits\n" + "c\n" * (step + 1) + "top 20\nq\n"
    out = run([walkthrough, "-q", "--model", model, "-p", prompt, "-n", str(step + 1), "--threads", "2",
               "--step"], stdin=script.encode()).stdout.decode("utf-8", "surrogateescape")
    rows = [(rank, tid, logit, from_display(piece)) for rank, tid, logit, piece in
            re.findall(r'^\s+(\d+)\s+(\d+)\s+(-?[\d.]+)\s+[\d.]+\s+"(.*)"$', out, re.M)]
    if len(rows) < 2:
        return "(top logits not found)"
    (_, id1, l1, p1), (_, id2, l2, p2) = rows[:2]
    text = f"top 2: {id1} {show(p1)} {l1}, {id2} {show(p2)} {l2} (gap {float(l1) - float(l2):.4f})"
    matches = [r for r in rows if r[3] and theirs.startswith(r[3])]
    if matches:
        rank, tid, logit, piece = max(matches, key=lambda r: len(r[3]))
        text += f"; llama.cpp's {show(piece)} is our rank {rank}, {logit}"
    else:
        text += "; llama.cpp's token is not among our 20 best"
    return text


def llama_simple(model, prompt, n, ours):
    """llama-simple's greedy text after the prompt (it prints the prompt's pieces, BOS included,
    then each token's), or None when its prompt differs from the engine's."""
    out = run([os.path.join(args.llama, "bin", "llama-simple"), "-m", model, "-n", str(n), prompt]).stdout
    out = out[:-1] if out.endswith(b"\n") else out
    return out[len(ours.prompt_pieces):] if out.startswith(ours.prompt_pieces) else None


def llama_cli_f32_cache(model, prompt, n, ours):
    """llama-cli's greedy text (--temp 0 keeps only the best logit) with its KV cache in F32: the
    cache is F16 by default (llama-simple's), which rounds every key and value."""
    out = run([os.path.join(args.llama, "bin", "llama-cli"), "-m", model, "-no-cnv", "--no-warmup",
               "--no-display-prompt", "--temp", "0", "-n", str(n), "-t", "2", "-ctk", "f32", "-ctv", "f32",
               "-p", prompt], stdin=b"").stdout
    out = out[:-2] if out.endswith(b"\n\n") else out
    return out[:-len(b" [end of text]\n")] if out.endswith(b" [end of text]\n") else out


REFERENCES = {"llama-simple": llama_simple, "llama-cli, F32 KV cache": llama_cli_f32_cache}
our_runs = {}


def show(b):
    return repr(b.decode("utf-8", "replace"))


def compare(model, prompt, n, reference):
    """(identical, report) for one prompt: the engine's generated bytes against a llama.cpp tool's."""
    key = (model, prompt, n)
    if key not in our_runs:
        our_runs[key] = OurRun(args.walkthrough, model, prompt, n)
    ours = our_runs[key]
    theirs = REFERENCES[reference](model, prompt, n, ours)
    if theirs is None:
        return False, f"prompt tokenized differently (ours: {show(ours.prompt_pieces)})"
    if theirs == ours.text:
        return True, f"identical ({len(ours.tokens)} tokens, {len(ours.text)} bytes)"
    b = len(os.path.commonprefix([theirs, ours.text]))
    if b == len(theirs) or b == len(ours.text):
        who = reference if b == len(theirs) else "ours"
        return False, f"{who} stopped first, after {b} identical bytes"
    k = ours.token_at_byte(b)
    start = sum(len(p) for _, p in ours.tokens[:k])
    return False, (f"parts at generated token {k + 1} of {len(ours.tokens)} (byte {b}): ours {show(ours.tokens[k][1])}, "
                   f"llama.cpp {show(theirs[start:start + 12])}...; ours {top_logits(args.walkthrough, model, prompt, k, theirs[start:])}")


def part_a():
    print("== A. llama2.c files through llama.cpp's llama-convert-llama2c-to-ggml")
    # llama.cpp's converter reads the legacy layout only (seven int32 then float32 weights): the
    # version 1 and version 2 fixtures go through `convert --to llama2c` (legacy layout; version 2's
    # int8 weights dequantized as the engine reads them, so the same F32 values) first.
    prompts = open(os.path.join(fixtures, "goldens", "prompts.txt")).read().splitlines()
    rows = []
    for name in ["legacy", "v1", "v2", "v2_gs16"]:
        src = os.path.join(fixtures, name + ".bin")
        legacy = src
        if name != "legacy":
            legacy = os.path.join(args.work, name + "-legacy.bin")
            run([default_walkthrough, "convert", "--model", src, "--to", "llama2c", "--out", legacy])
        gguf = os.path.join(args.work, name + ".llama2c.gguf")
        run([os.path.join(args.llama, "bin", "llama-convert-llama2c-to-ggml"), "--copy-vocab-from-model",
             os.path.join(fixtures, "tokenizer.bin"), "--llama2c-model", legacy, "--llama2c-output-model", gguf])
        for i, prompt in enumerate(prompts):
            # Both runs stop when the converter's 128 positions are full.
            limit = ["--max-seq-len", str(CONVERTER_CONTEXT)]
            from_bin = OurRun(args.walkthrough, src, prompt, CONVERTER_CONTEXT, limit)
            from_gguf = OurRun(args.walkthrough, gguf, prompt, CONVERTER_CONTEXT, limit)
            same = from_bin.tokens == from_gguf.tokens and from_bin.prompt_pieces == from_gguf.prompt_pieces
            n = len(from_bin.tokens)
            verdict = f"identical, {n} tokens" if same else "DIFFERENT"
            if not same:
                k = next((j for j, (a, b) in enumerate(zip(from_bin.tokens, from_gguf.tokens)) if a != b),
                         min(len(from_bin.tokens), len(from_gguf.tokens)))
                verdict += f" from generated token {k + 1}"
            ok, vs_llama = compare(gguf, prompt, N_TOKENS, "llama-simple")
            print(f"{name} prompt {i}: .bin vs llama.cpp's GGUF in this engine: {verdict}; "
                  f"llama-simple on the GGUF ({N_TOKENS} tokens): {vs_llama}")
            rows.append((name, same and n >= 64, ok))
    return rows


def mark_unused_tokens_normal(path):
    """The synthetic Llama 2 vocabulary's fillers "[N]" are UNUSED tokens (type 5), which llama.cpp
    prints as nothing; the engine prints their text. Marked NORMAL (1) in place, both print "[N]".
    Walks the GGUF key-value section to tokenizer.ggml.token_type (an int32 array)."""
    scalar = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    with open(path, "r+b") as f:
        def read(fmt):
            return struct.unpack("<" + fmt, f.read(struct.calcsize("<" + fmt)))

        def skip(kind):
            if kind in scalar:
                f.seek(scalar[kind], 1)
            elif kind == 8:
                f.seek(read("Q")[0], 1)
            elif kind == 9:
                elem, n = read("IQ")
                for _ in range(n):
                    skip(elem)
            else:
                sys.exit(f"{path}: unknown GGUF value type {kind}")

        magic, _, _, n_kv = read("4sIQQ")
        assert magic == b"GGUF", path
        for _ in range(n_kv):
            key = f.read(read("Q")[0])
            kind = read("I")[0]
            if key == b"tokenizer.ggml.token_type" and kind == 9:
                elem, n = read("IQ")
                assert elem == 5, "token_type is not int32"
                start = f.tell()
                types = array("i", f.read(4 * n))
                for i, t in enumerate(types):
                    if t == 5:
                        types[i] = 1
                f.seek(start)
                f.write(types.tobytes())
                return
            skip(kind)
    sys.exit(f"{path}: no tokenizer.ggml.token_type")


def part_b():
    print(f"== B. llama.cpp-quantized GGUF files: this engine against llama.cpp, {len(PROMPTS)} prompts x {N_TOKENS} tokens")
    sources = {
        "bundled": [default_walkthrough, "convert", "--model", os.path.join(repo, "assets", "model")],
        "tinyllama": [default_walkthrough, "convert", "--synthetic", "tinyllama-1.1b"],
    }
    table = []
    for model, cmd in sources.items():
        if model not in args.models:
            continue
        f32 = os.path.join(args.work, f"{model}-f32.gguf")
        if not os.path.exists(f32):
            run(cmd + ["--to", "gguf-f32", "--out", f32])
            if model == "tinyllama":
                mark_unused_tokens_normal(f32)
        for q in args.quants:
            path = os.path.join(args.work, f"{model}-{q}.gguf")
            if not os.path.exists(path):  # written under a temporary name: runs can share --work
                run([os.path.join(args.llama, "bin", "llama-quantize"), f32, f"{path}.{os.getpid()}", q])
                os.replace(f"{path}.{os.getpid()}", path)
            for reference in args.references:
                same = 0
                for i, prompt in enumerate(PROMPTS):
                    ok, report = compare(path, prompt, N_TOKENS, reference)
                    same += ok
                    print(f"{model} {q} vs {reference}, prompt {i} {prompt!r}: {report}", flush=True)
                table.append((model, q, reference, same))
    return table


parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("llama", metavar="LLAMA_CPP_BUILD_DIR")
default_walkthrough = os.path.join(repo, "build", "walkthrough", "llama-walkthrough")
parser.add_argument("--walkthrough", default=default_walkthrough)
parser.add_argument("--work", default="/tmp/compare-llamacpp")
parser.add_argument("--parts", default="ab")
parser.add_argument("--reference", action="append", choices=list(REFERENCES), dest="references",
                    help="part B's llama.cpp tools to compare with (default: both)")
parser.add_argument("--model", action="append", choices=["bundled", "tinyllama"], dest="models",
                    help="part B's models (default: both)")
parser.add_argument("--quant", action="append", choices=QUANTS, dest="quants", help="part B's types (default: all)")
args = parser.parse_args()
args.references = args.references or list(REFERENCES)
args.models = args.models or ["bundled", "tinyllama"]
args.quants = args.quants or QUANTS
os.makedirs(args.work, exist_ok=True)

a_rows = part_a() if "a" in args.parts else []
b_rows = part_b() if "b" in args.parts else []

print("\n== Summary")
if a_rows:
    print("| llama2.c file | .bin = llama.cpp's GGUF in this engine | = llama-simple on that GGUF |")
    print("| --- | --- | --- |")
    for name in dict.fromkeys(r[0] for r in a_rows):
        mine = [r for r in a_rows if r[0] == name]
        print(f"| {name} | {sum(r[1] for r in mine)}/{len(mine)} | {sum(r[2] for r in mine)}/{len(mine)} |")
if b_rows:
    print(f"| model | llama.cpp | " + " | ".join(args.quants) + " |")
    print("| --- | --- |" + " --- |" * len(args.quants))
    for model in dict.fromkeys(r[0] for r in b_rows):
        for reference in args.references:
            print(f"| {model} | {reference} | " + " | ".join(
                f"{same}/{len(PROMPTS)}" for m, q, r, same in b_rows if m == model and r == reference) + " |")
sys.exit(0 if all(r[1] for r in a_rows) else 1)
