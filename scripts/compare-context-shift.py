#!/usr/bin/python3
"""A context shift against llama.cpp's (issue 33, item 6). Python's standard library only.

The bundled model as an F32 GGUF (written by `convert`), one prompt, greedy, a context of C
positions and far more tokens than fit, so that both engines shift several times:
  llama.cpp: llama-cli -c C --keep K (context shift is on by default at c392e5094; it keeps BOS
             besides the K prompt tokens), KV cache in F32 (-ctk f32 -ctv f32), --temp 0
  ours:      llama-walkthrough batch --parallel 1 --max-seq-len C --context-shift --keep K+1
Both shift as llama.cpp's examples/main does: when the next token would fill the last cell,
n_discard = (n_past - n_keep) / 2, seq_rm [n_keep, n_keep + n_discard), seq_add the rest by
-n_discard. Prints where the texts part (if they do) and how many shifts happened before.
Results in README.md ("Many sequences at once").

Usage: scripts/compare-context-shift.py LLAMA_CPP_BUILD_DIR [--walkthrough BIN] [--work DIR] [--goldens DIR]
  --goldens DIR   also write llama.cpp's texts there (prompts.txt and N.txt), the goldens of
                  tests/batch_context_shift_test.cpp (tests/fixtures/context_shift)
"""
import argparse
import os
import subprocess
import sys

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPTS = ["And God said", "In the beginning God created", "The LORD is my shepherd"]
CONTEXT, KEEP, TOKENS = 64, 4, 200


def run(cmd):
    p = subprocess.run(cmd, input=b"", capture_output=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode(errors='replace')[-2000:]}")
    return p.stdout.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("llama")
    ap.add_argument("--walkthrough", default=os.path.join(repo, "build", "walkthrough", "llama-walkthrough"))
    ap.add_argument("--work", default="/tmp/compare-context-shift")
    ap.add_argument("--goldens")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model = os.path.join(args.work, "bundled-f32.gguf")
    if not os.path.exists(model):
        run([args.walkthrough, "convert", "--model", os.path.join(repo, "assets", "model"), "--to", "gguf-f32", "--out", model])
    same = 0
    if args.goldens:
        os.makedirs(args.goldens, exist_ok=True)
        with open(os.path.join(args.goldens, "prompts.txt"), "w") as f:
            f.write("".join(p + "\n" for p in PROMPTS))
        with open(os.path.join(args.goldens, "SOURCE"), "w") as f:
            f.write(f"llama.cpp c392e5094 llama-cli, scripts/compare-context-shift.py: -c {CONTEXT} --keep {KEEP} -n {TOKENS} --temp 0, "
                    "F32 KV cache, on the bundled model converted to an F32 GGUF\n")
    for i, prompt in enumerate(PROMPTS):
        theirs = run([os.path.join(args.llama, "bin", "llama-cli"), "-m", model, "-no-cnv", "--no-warmup", "--no-display-prompt",
                      "--temp", "0", "-n", str(TOKENS), "-t", "2", "-ctk", "f32", "-ctv", "f32", "-c", str(CONTEXT),
                      "--keep", str(KEEP), "-p", prompt])
        out = run([args.walkthrough, "batch", "-q", "--model", model, "--parallel", "1", "--max-seq-len", str(CONTEXT),
                   "--context-shift", "--keep", str(KEEP + 1), "-n", str(TOKENS), "-p", prompt])
        # "[1] PROMPT TEXT" up to the blank line before the table.
        ours = out.split("[1] ", 1)[1].split("\n\n seq", 1)[0][len(prompt):].rstrip("\n")
        shifts = out.split("\n   1 ", 1)[1].split()[3]
        theirs = theirs.rstrip("\n")
        if args.goldens:
            with open(os.path.join(args.goldens, f"{i}.txt"), "w") as f:
                f.write(theirs)
        if ours == theirs:
            same += 1
            print(f"{prompt!r}: identical, {len(ours)} characters, {shifts} context shifts")
        else:
            at = next((i for i in range(min(len(ours), len(theirs))) if ours[i] != theirs[i]), min(len(ours), len(theirs)))
            print(f"{prompt!r}: part at character {at} of {len(ours)} ({shifts} shifts in all):\n"
                  f"  ours:      ...{ours[max(0, at - 60):at + 40]!r}\n  llama.cpp: ...{theirs[max(0, at - 60):at + 40]!r}")
    print(f"{same} of {len(PROMPTS)} identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
