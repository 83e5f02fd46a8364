#!/usr/bin/env bash
# The README's small-model table: this engine beside llama.cpp on the two models learners run most,
# end to end as a learner runs them (our CLI against llama-cli, greedy, the same prompt and token
# count) and as `bench` against `llama-bench`, at 1 and 2 threads. Runs alternate, ours then
# theirs, ROUNDS times per cell; the table gives medians and their ratio (docs/speed.md, "A token
# of a small model").
#   scripts/bench-small-models.sh LLAMA_CPP_BIN [BUILD_DIR]
# LLAMA_CPP_BIN: a llama.cpp build's bin/ (llama-cli, llama-bench; the pinned commit, c392e5094).
# The models, made once in $OUT (default /tmp/bench-small-models):
#   bundled-bf16.gguf  the bundled model (assets/model) as a BF16 GGUF, by our convert;
#   s260/model.gguf    a model of llama2.c's stories260K's shape (dim 64, 5 layers, 8 heads, 4 KV
#                      heads, FFN 172, vocab 512: 256 byte ranks and Llama 3's 256 specials),
#                      trained by our engine on the KJV corpus for 300 steps, F32 as train writes
#                      it. stories260K itself is on a model hub this project cannot download from.
set -euo pipefail
bin=${1:?usage: $0 LLAMA_CPP_BIN [BUILD_DIR]}
build=${2:-build}
cli=$build/walkthrough/llama-walkthrough
out=${OUT:-/tmp/bench-small-models}
rounds=${ROUNDS:-5}
mkdir -p "$out"
prompt="And it came to pass, when the LORD would take up Elijah into heaven by a whirlwind, that Elijah went with Elisha from Gilgal."

[ -f "$out/bundled-bf16.gguf" ] || $cli convert --model assets/model --to gguf-bf16 --out "$out/bundled-bf16.gguf" >/dev/null
if [ ! -f "$out/s260/model.gguf" ]; then
    [ -f assets/data/train.txt ] || python3 assets/make_corpus.py >/dev/null
    $cli tokenizer-train --text assets/data/train.txt --out "$out/tok256.model" --vocab 256 --force >/dev/null
    $cli train --text assets/data/train.txt --heldout assets/data/heldout.txt --tokenizer "$out/tok256.model" --out "$out/s260" \
        --force --steps 300 --warmup 30 --lr 0.005 --dim 64 --n-layers 5 --n-heads 8 --n-kv-heads 4 --multiple-of 4 \
        --ffn-dim-multiplier 1 --seq-len 256 --batch 8 --log-every 100 >/dev/null
fi

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ours_run() {  # model threads -> "prefill decode"
    $cli --model "$1" --threads "$2" --prompt "$prompt" -n 64 --max-seq-len 512 2>&1 |
        sed -n 's/.*prefill: \([0-9.]*\) tok\/s | decode: \([0-9.]*\) tok\/s.*/\1 \2/p'
}
theirs_run() {
    "$bin/llama-cli" -m "$1" -t "$2" -p "$prompt" -n 64 -c 512 --temp 0 --top-k 1 -no-cnv --ignore-eos </dev/null 2>&1 |
        awk '/prompt eval time/ {for (i=1;i<=NF;i++) if ($i=="tokens" && $(i+1)=="per") p=$(i-1)}
             / eval time/ && !/prompt/ {for (i=1;i<=NF;i++) if ($i=="tokens" && $(i+1)=="per") d=$(i-1)}
             END {print p, d}'
}
kernels=$($cli bench --model "$out/s260/model.gguf" --prompt-tokens 4 --decode-tokens 1 --repeat 1 2>/dev/null | sed -n 's/^kernels: \([a-z0-9]*\).*/\1/p')
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); our kernels: $kernels (LLAMA_KERNELS picks another); $(date -u +%F); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "End to end: llama-walkthrough against llama-cli, the same prompt, 64 greedy tokens, medians of $rounds alternating runs"
echo
echo "| model | threads | ours prefill | llama.cpp prefill | ratio | ours decode | llama.cpp decode | ratio |"
echo "|---|---|---|---|---|---|---|---|"
for model in bundled-bf16.gguf s260/model.gguf; do
    for t in 1 2; do
        : >"$out/ours" ; : >"$out/theirs"
        for _ in $(seq "$rounds"); do ours_run "$out/$model" $t >>"$out/ours"; theirs_run "$out/$model" $t >>"$out/theirs"; done
        op=$(cut -d' ' -f1 "$out/ours" | median); od=$(cut -d' ' -f2 "$out/ours" | median)
        tp=$(cut -d' ' -f1 "$out/theirs" | median); td=$(cut -d' ' -f2 "$out/theirs" | median)
        awk -v m="$model" -v t=$t -v op=$op -v tp=$tp -v od=$od -v td=$td \
            'BEGIN {printf "| %s | %d | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx |\n", m, t, op, tp, op/tp, od, td, od/td}'
    done
done
echo
echo "bench against llama-bench (62 prompt tokens, 64 decode tokens): $rounds rounds, each a process of ours (--repeat 3, its"
echo "median) then one of llama-bench (-r 3, its mean); medians of the rounds, and the range of the rounds' own ratios"
echo "(one process's speed on a VM can differ from the next one's by a third, so no cell rests on one process)"
echo
echo "| model | threads | phase | ours | llama-bench | ratio | rounds' ratios |"
echo "|---|---|---|---|---|---|---|"
for model in bundled-bf16.gguf s260/model.gguf; do
    for t in 1 2; do
        : >"$out/bench"
        for _ in $(seq "$rounds"); do
            $cli bench --model "$out/$model" --threads $t --prompt-tokens 62 --decode-tokens 64 --repeat 3 \
                --llama-bench "$bin/llama-bench" 2>&1 |
                awk '/^(prefill|decode) \(/ {print $1, $(NF-4), $(NF-1)}' >>"$out/bench"  # phase, llama.cpp's mean, ours
        done
        for phase in prefill decode; do
            grep "^$phase " "$out/bench" | awk -v m="$model" -v t=$t -v p=$phase -v med="$(grep "^$phase " "$out/bench" | cut -d' ' -f3 | median)" \
                -v their="$(grep "^$phase " "$out/bench" | cut -d' ' -f2 | median)" \
                '{r = $3 / $2; lo = (NR == 1 || r < lo) ? r : lo; hi = (NR == 1 || r > hi) ? r : hi}
                 END {printf "| %s | %d | %s | %.0f | %.0f | %.2fx | %.2f-%.2fx |\n", m, t, p, med, their, med / their, lo, hi}'
        done
    done
done
