#!/usr/bin/env python3
"""Where one decoded token's time goes, for this engine and for llama.cpp on the same file.

Each command is run twice under `perf record` (cpu-clock samples, so it needs no hardware
counters): generating SHORT and then LONG tokens. The difference between the two runs' samples,
divided by LONG - SHORT, is what a decode step costs, with the load, the prefill and the start-up
cancelled out. Samples are sorted into the same categories for both engines by their symbols
(the patterns below), and printed as CPU microseconds per decoded token (both threads' CPU time
added: a thread that spins while waiting counts too).

  scripts/profile-token.py --ours "build/walkthrough/llama-walkthrough --model M --prompt P --max-seq-len 1024 -n {n}" \
      --llama "/path/llama-cli -m M.gguf -p P --temp 0 --top-k 1 -no-cnv --ignore-eos -n {n}" [--short 64 --long 320] \
      [--before "OTHER_BUILD/walkthrough/llama-walkthrough ..."]

{n} in a command is the number of tokens to generate. Needs perf (linux-perf) and permission to
record (perf_event_paranoid <= 1, or root).
"""
import argparse, collections, os, re, shlex, subprocess, sys, tempfile

HZ = 10000  # samples per second of CPU time: each sample is 100 microseconds

# (category, pattern on "dso symbol"); the first that matches wins. Order matters: the kernels'
# own symbols before the op catch-all, page faults before the other kernel symbols. llama.cpp
# (built with OpenMP, its default) waits in libgomp; its attention products are mul_mat ops too,
# dotting its F16 KV cache (ggml_vec_dot_f16), so F16 dots count as attention (for BF16 and
# quantized weights, as measured here).
CATEGORIES = [
    ("weight matrix products", r"llama::ml::kernels::|runStep|forOutputRows|LinearTransformation|llama::ml::\(anonymous namespace\)::linear|"
                               r"quantizeRow|activation_quant|ggml_vec_dot_(bf16|q|iq|f32)|ggml_compute_forward_mul_mat|ggml_gemv|ggml_gemm|quantize_row|"
                               r"fp32_to_bf16|fp32_to_fp16"),
    ("allocation and page faults", r"\bmalloc|\bfree\b|cfree|_int_malloc|_int_free|malloc_consolidate|unlink_chunk|tcache|"
                                   r"\[k\] .*(clear_page|fault|alloc_pages|rmqueue|memcg|lru|folio|pte|zap_|unmap_|free_pages|"
                                   r"free_unref|mmap|vma|page_)|operator new|operator delete|aligned_alloc"),
    ("thread hand-overs and waiting", r"\[k\] |libgomp|ThreadPool|TaskThreads|TaskScope|pthread|futex|sched_yield|clone|start_thread|std::thread|"
                                      r"_dl_allocate_tls|__future_base|packaged_task|condition_variable|__lll_|ggml_barrier|"
                                      r"ggml_graph_compute_thread|ggml_graph_compute_check|ggml_threadpool|ggml_graph_compute_poll|"
                                      r"ggml_graph_compute_secondary|cpuRelax|pollBeforeSleeping|workerLoop|runChunk|parallelFor"),
    ("graph, sampling, loop and output", r"Sampler|Argmax|[Gg]eneration|Tokenizer|fmt::|GeneratedSequence|firstNonFinite|Session|"
                                         r"InferenceContext|Observer|llama_sampler|common_sampler|token_to_piece|llm_build|llama_decode|"
                                         r"ggml_backend_sched|ggml_gallocr|ggml_graph_|ggml_new_tensor|ggml_hash|ggml_visit|llama_graph|"
                                         r"llama_kv_cache|llama_batch|common_|console::|write|std::ostream|printf"),
    ("attention, norms and other ops", r"llama::|ggml_compute_forward|ggml_vec_|ggml_cpu|ggml_|memcpy|memmove|memset"),
]


def run_perf(command, n, data):
    argv = shlex.split(command.replace("{n}", str(n)))
    out = subprocess.run(["perf", "record", "-F", str(HZ), "-o", data, "--"] + argv, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, errors="replace")
    if out.returncode != 0:
        sys.exit(f"perf record failed for: {' '.join(argv)}\n{out.stderr[-2000:]}")
    report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--stdio", "-g", "none", "--sort", "dso,sym",
                             "-F", "sample,dso,sym"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace").stdout
    samples = collections.Counter()
    for line in report.splitlines():
        m = re.match(r"\s*(\d+)\s+(\S+)\s+(\[.\])\s+(.*)$", line)
        if not m:
            continue
        count, dso, kind, sym = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        key = f"{kind} {sym}" if kind == "[k]" else f"{dso} {sym}"
        samples[category_of(key)] += count
    return samples


def category_of(key):
    for name, pattern in CATEGORIES:
        if re.search(pattern, key):
            return name
    return "other"


def per_token(command, short, long_, repeats):
    """CPU microseconds per decoded token by category: medians over repeats of (long - short) / tokens."""
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        for _ in range(repeats):
            a, b = run_perf(command, short, data), run_perf(command, long_, data)
            runs.append({c: (b[c] - a[c]) * 1e6 / HZ / (long_ - short) for c in set(a) | set(b)})
    names = [c for c, _ in CATEGORIES] + ["other"]
    return {c: sorted(r.get(c, 0.0) for r in runs)[len(runs) // 2] for c in names}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--before", help="another build of ours (the commit before a change), profiled the same way")
    ap.add_argument("--llama", help="llama.cpp's command, profiled the same way")
    ap.add_argument("--short", type=int, default=64)
    ap.add_argument("--long", type=int, default=320)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    sides = ([("ours before", a.before)] if a.before else []) + [("ours", a.ours)] + ([("llama.cpp", a.llama)] if a.llama else [])
    results = {name: per_token(cmd, a.short, a.long, a.repeats) for name, cmd in sides}
    names = [c for c, _ in CATEGORIES] + ["other"]
    print(f"CPU microseconds per decoded token (both threads), ({a.long} - {a.short} tokens), median of {a.repeats}")
    print("| category | " + " | ".join(n for n, _ in sides) + " |")
    print("|---|" + "---|" * len(sides))
    for c in names + ["total"]:
        cells = [results[n][c] if c != "total" else sum(results[n].values()) for n, _ in sides]
        print(f"| {c} | " + " | ".join(f"{v:.0f}" for v in cells) + " |")


if __name__ == "__main__":
    main()
