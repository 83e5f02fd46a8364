#!/usr/bin/env bash
# docs/traces.md's "What watching costs" table: what watching a run costs, each figure measured side by side
# with its yardstick (farm-bench runs the two commands in turn, A B A B ..., and takes the ratio
# pair by pair, so a busy machine slows both sides alike). Medians of 3.
#   scripts/bench-observers.sh [BUILD_DIR [PARTS]]   (default: build 1234; needs farm-bench and Xvfb)
set -euo pipefail
build=${1:-build}
parts=${2:-1234}
part() { case $parts in *$1*) return 0 ;; *) return 1 ;; esac; }
cli=$build/walkthrough/llama-walkthrough
viewer=$build/viewer/llama-viewer
out=/tmp/bench-observers
mkdir -p "$out"
prompt="And the LORD spake unto Moses"
runs=${RUNS:-3}

section() { printf '\n== %s\n' "$*"; }

# 1. The bundled model, 400 tokens: a trace without and with the logit lens, against the plain run.
plain="$cli --prompt '$prompt' -n 400"
if part 1; then
section "bundled model, 400 tokens: CLI --trace --trace-lens-top-k 0 / plain CLI"
farm-bench -n $runs --timeout 900 --vs "$plain" -- $cli --prompt "$prompt" -n 400 --trace $out/nolens.trace --trace-lens-top-k 0
section "bundled model, 400 tokens: CLI --trace / plain CLI"
farm-bench -n $runs --timeout 900 --vs "$plain" -- $cli --prompt "$prompt" -n 400 --trace $out/lens.trace
fi

# 2. The viewer's scripted run of the same 400 tokens under a virtual X server, against CLI --trace.
Xvfb :91 -screen 0 1366x768x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb' EXIT
sleep 1
printf 'load\nrun\nquit\n' >$out/run.txt
if part 2; then
section "bundled model, 400 tokens: viewer scripted run / CLI --trace"
DISPLAY=:91 farm-bench -n $runs --timeout 900 --vs "$cli --prompt '$prompt' -n 400 --trace $out/lens.trace" -- \
    $viewer --script $out/run.txt --prompt "$prompt" -n 400
fi

# 3. --synthetic tinyllama-1.1b: the viewer's decode step and resident memory. A step's time is the
# difference between runs of 81 and 21 tokens (60 steps: the runs' start-up varies by a second), for the viewer and for
# the plain CLI (stricter than the CLI with --observer record, which part 4 shows costs no more);
# the peak resident memory of the 21- and 81-token viewer runs shows whether it stays flat.
part 3 && for n in 21 81; do
    section "tinyllama-1.1b, $n tokens: viewer scripted run / plain CLI"
    DISPLAY=:91 farm-bench -n $runs --timeout 1800 --vs "$cli --synthetic tinyllama-1.1b --prompt '$prompt' -n $n" -- \
        $viewer --script $out/run.txt --synthetic tinyllama-1.1b --prompt "$prompt" -n $n
done

# 4. A TinyLlama-shaped Q4_K_M file, 1024-token prompt, 2 threads: decode with each observer.
part 4 || exit 0
[ -f $out/tl-q4_k.gguf ] || $cli convert --synthetic tinyllama-1.1b --to gguf-q4_k --out $out/tl-q4_k.gguf
for observer in none record log none record log none record log; do
    section "Q4_K_M, 1024-token prompt, 2 threads: bench --observer $observer"
    $cli bench --model $out/tl-q4_k.gguf --threads 2 --prompt-tokens 1024 --decode-tokens 16 --repeat 1 --observer $observer |
        grep -E "decode [0-9.]+ tok/s" | tail -1
done
