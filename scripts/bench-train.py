#!/usr/bin/env python3
"""Training speed side by side: `llama-walkthrough train` against PyTorch's assets/train.py.

Both train the bundled model's shape (dim 256, 8 layers, 8/2 heads, FFN 1024, vocab 4096) on the
King James corpus, 16 windows of 256 tokens a step, AdamW, clipping, on as many threads
as the machine has cores, each in two precisions. PyTorch runs train.py's own --bench mode with bf16
autocast (how the bundled model was trained: this Debian build's float32 matmuls use a generic BLAS,
its bf16 ones oneDNN) and in float32; the engine with BF16 products (--products bf16, its default,
as autocast: BF16 operands, F32 sums and master weights) and in F32 throughout. The runs alternate,
--rounds times; each figure is the median over the rounds of the median step time, the first step
of each run left out (warm-up). Peak memory is each process's maximum resident set (wait4).

Debian's python3-torch calls its float32 matmuls through libblas.so.3, which is the reference
(netlib) BLAS unless another is installed: unblocked, one thread, about 2 GFLOP/s here, which made
PyTorch's float32 step 56 s. PyTorch runs here with OpenBLAS (Debian's libopenblas0-pthread, put
first with LD_LIBRARY_PATH, the system's choice of BLAS left as it is), as a PyTorch install would
have a tuned BLAS; --netlib-steps N adds a float32 row on the reference BLAS for comparison.

    scripts/bench-train.py [--walkthrough build/walkthrough/llama-walkthrough] [--steps 8]
                           [--f32-steps 3] [--bf16-steps STEPS] [--rounds 3] [--netlib-steps 0]

On a CPU without AVX-512 (the Zen 3 of docs/training.md) this PyTorch's bf16 autocast step took
about 100 s (oneDNN 2.6's bf16 kernels need AVX-512): --bf16-steps 0 leaves that row out of the
rounds, to be measured apart (--rounds 1 --bf16-steps 2).

Needs python3-torch, libopenblas0-pthread, python3-numpy, python3-regex and bible-kjv (assets/README.md); makes
assets/data (train.txt, train.npy: build intermediates, not committed) when it is missing.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASSETS = os.path.join(ROOT, "assets")
SHAPE = ["--dim", "256", "--n-layers", "8", "--n-heads", "8", "--n-kv-heads", "2", "--multiple-of", "256",
         "--ffn-dim-multiplier", "1.3", "--seq-len", "256", "--batch", "16"]


def run(cmd, env=None):
    """Runs cmd, returns (stdout, peak resident set in MB)."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        _, status, usage = os.wait4(p.pid, 0)
        out.seek(0)
        text = out.read().decode()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{text}")
        return text, usage.ru_maxrss / 1024


def step_seconds(elapsed):
    """Step times from cumulative elapsed seconds, the first step left out."""
    return statistics.median(b - a for a, b in zip(elapsed, elapsed[1:]))


OPENBLAS = "/usr/lib/x86_64-linux-gnu/openblas-pthread"


def torch_run(steps, bf16, threads, blas="openblas"):
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OPENBLAS_NUM_THREADS=str(threads))
    if blas == "openblas":
        if not os.path.exists(os.path.join(OPENBLAS, "libblas.so.3")):
            sys.exit(f"{OPENBLAS}/libblas.so.3 is missing: apt-get install libopenblas0-pthread")
        env["LD_LIBRARY_PATH"] = OPENBLAS + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    cmd = [sys.executable, os.path.join(ASSETS, "train.py"), "--bench", str(steps), "--threads", str(threads)] + SHAPE
    text, rss = run(cmd + (["--bf16"] if bf16 else []), env)
    elapsed = [float(m) for m in re.findall(r"^step \d+ loss \S+ ([\d.]+)s", text, re.M)]
    return step_seconds(elapsed), rss


def engine_run(walkthrough, steps, products):
    with tempfile.TemporaryDirectory() as out:
        _, rss = run([walkthrough, "train", "--text", os.path.join(ASSETS, "data", "train.txt"), "--tokenizer",
                      os.path.join(ASSETS, "model", "tokenizer.model"), "--out", out, "--force", "--steps", str(steps),
                      "--log-every", "1", "--checkpoint-minutes", "1000", "--products", products] + SHAPE)
        with open(os.path.join(out, "log.jsonl")) as f:
            elapsed = [json.loads(line)["elapsed"] for line in f]
    return step_seconds(elapsed), rss


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--walkthrough", default=os.path.join(ROOT, "build", "walkthrough", "llama-walkthrough"))
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--f32-steps", type=int, default=3, help="steps of PyTorch float32")
    p.add_argument("--netlib-steps", type=int, default=0,
                   help="steps of PyTorch float32 on the reference BLAS (about 56 s each); 0 leaves it out")
    p.add_argument("--bf16-steps", type=int, default=None,
                   help="steps of PyTorch bf16 autocast (default: --steps); 0 leaves it out")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    if a.bf16_steps is None:
        a.bf16_steps = a.steps
    a.threads = os.cpu_count()  # the engine's pool takes every core; PyTorch is given as many
    data = os.path.join(ASSETS, "data")
    if not os.path.exists(os.path.join(data, "train.npy")):
        for script in ("make_corpus.py", "encode_data.py"):
            subprocess.run([sys.executable, os.path.join(ASSETS, script)], cwd=ASSETS, check=True)

    ours, ours_f32 = "llama-walkthrough train, BF16 products", "llama-walkthrough train, F32"
    trainers = {ours: lambda: engine_run(a.walkthrough, a.steps, "bf16"),
                ours_f32: lambda: engine_run(a.walkthrough, a.steps, "f32")}
    if a.bf16_steps > 0:
        trainers["PyTorch 1.13, bf16 autocast (OpenBLAS)"] = lambda: torch_run(a.bf16_steps, True, a.threads)
    trainers["PyTorch 1.13, float32 (OpenBLAS)"] = lambda: torch_run(a.f32_steps, False, a.threads)
    if a.netlib_steps > 0:
        trainers["PyTorch 1.13, float32 (reference BLAS)"] = lambda: torch_run(a.netlib_steps, False, a.threads, "netlib")
    results = {name: [] for name in trainers}
    for r in range(a.rounds):
        for name, fn in trainers.items():
            seconds, rss = fn()
            results[name].append((seconds, rss))
            print(f"round {r + 1}: {name}: {seconds:.3f} s/step, {4096 / seconds:.0f} tok/s, peak {rss:.0f} MB", flush=True)

    mine = statistics.median(s for s, _ in results[ours])
    mine_f32 = statistics.median(s for s, _ in results[ours_f32])
    print(f"\n{a.threads} threads, 16 x 256 tokens a step, medians over {a.rounds} rounds ({time.strftime('%Y-%m-%d')})")
    print("| trainer | s/step | tok/s | peak memory | the engine's BF16 speed against it "
          "| the engine's speed in the same precision against it |\n|---|---|---|---|---|---|")
    for name, runs in results.items():
        seconds = statistics.median(s for s, _ in runs)
        rss = statistics.median(m for _, m in runs)
        same = mine if "bf16" in name.lower() else mine_f32
        print(f"| {name} | {seconds:.3f} | {4096 / seconds:.0f} | {rss:.0f} MB | {seconds / mine:.2f}x | {seconds / same:.2f}x |")


if __name__ == "__main__":
    main()
