#!/usr/bin/env bash
# The README's comparison with llama.cpp on TinyLlama shapes, every cell from one run: `bench
# --llama-bench` (one sequence: prefill of 32 and 128 tokens, decode) and `bench --parallel 1,4,8
# --llama-batched-bench` (B sequences: PP and TG) on a BF16 and a Q4_K file. Each round runs every
# comparison once, ours then llama.cpp's back to back, so a drift of this machine's memory speed
# falls on both sides of a ratio; the table gives each side's median over ROUNDS rounds, the
# ratio of the medians and the range of the rounds' own ratios (docs/speed.md, "Against llama.cpp,
# cell by cell").
#   scripts/bench-tinyllama.sh LLAMA_CPP_BIN [BUILD_DIR]
# LLAMA_CPP_BIN: a llama.cpp build's bin/ (llama-bench, llama-batched-bench; the pinned commit,
# c392e5094). For the AVX2 comparison give llama.cpp's AVX2 build and ours built with
# -DLLAMA_MARCH=znver3, and run with LLAMA_KERNELS=avx2.
# The files, made once in $OUT (default /tmp/bench-tinyllama) by our own converter: TinyLlama-1.1B's
# shapes with synthetic weights, BF16 (2.2 GB) and Q4_K (every 2-D weight, 0.62 GB).
set -euo pipefail
bin=${1:?usage: $0 LLAMA_CPP_BIN [BUILD_DIR]}
build=${2:-build}
cli=$build/walkthrough/llama-walkthrough
out=${OUT:-/tmp/bench-tinyllama}
rounds=${ROUNDS:-3}
threads=${THREADS:-2}
mkdir -p "$out"
for t in bf16 q4_k; do
    [ -f "$out/tinyllama-$t.gguf" ] || $cli convert --synthetic tinyllama-1.1b --to gguf-$t --out "$out/tinyllama-$t.gguf" >/dev/null
done

# Each line of $out/samples: "file cell ours theirs".
: >"$out/samples"
for r in $(seq "$rounds"); do
    for t in bf16 q4_k; do
        f=$out/tinyllama-$t.gguf
        $cli bench --model "$f" --threads "$threads" --prompt-tokens 32,128 --decode-tokens 32 --repeat 3 \
            --llama-bench "$bin/llama-bench" 2>&1 | tee "$out/single-$t-$r.log" |
            awk -v f=$t '/^prefill \([0-9]+ tokens\) +[0-9.]+ ±/ {print f, "prefill-" substr($2, 2), $7, $4}
                         /^decode \([0-9]+ tokens\) +[0-9.]+ ±/ {print f, "decode", $7, $4}' >>"$out/samples"
        $cli bench --model "$f" --threads "$threads" --parallel 1,4,8 --prompt-tokens 32 --decode-tokens 32 --repeat 3 \
            --llama-batched-bench "$bin/llama-batched-bench" 2>&1 | tee "$out/batched-$t-$r.log" |
            awk -v f=$t '/^Medians of/ {done = 1} $1 ~ /^[0-9]+$/ && NF == 7 && !done && seen {print f, "PP-B" $1, $3, $2; print f, "TG-B" $1, $6, $5}
                         /llama.cpp PP t\/s/ {seen = 1}' >>"$out/samples"
    done
    echo "round $r of $rounds done: $(wc -l <"$out/samples") cells" >&2
done

kernels=$(sed -n 's/^kernels: \([a-z0-9]*\).*/\1/p' "$out/single-bf16-1.log")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); our kernels: $kernels; $threads threads; $(date -u +%F); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians of $rounds rounds, each round ours then llama.cpp's for every cell (each side itself a median or mean of 3 repeats)"
echo
echo "| file | cell | ours tok/s | llama.cpp tok/s | ratio of medians | rounds' ratios |"
echo "|---|---|---|---|---|---|"
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for t in bf16 q4_k; do
    for cell in prefill-32 prefill-128 decode PP-B1 PP-B4 PP-B8 TG-B1 TG-B4 TG-B8; do
        rows=$(awk -v f=$t -v c=$cell '$1 == f && $2 == c' "$out/samples")
        [ -n "$rows" ] || { echo "| $t | $cell | missing: see $out/*.log | | | |"; continue; }
        ours=$(echo "$rows" | awk '{print $3}' | median)
        theirs=$(echo "$rows" | awk '{print $4}' | median)
        range=$(echo "$rows" | awk '{printf "%.2f\n", $3 / $4}' | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {print lo "-" hi}')
        awk -v t=$t -v c=$cell -v o=$ours -v h=$theirs -v r=$range \
            'BEGIN {printf "| %s | %s | %.2f | %.2f | %.2fx | %s |\n", t, c, o, h, o / h, r}'
    done
done
