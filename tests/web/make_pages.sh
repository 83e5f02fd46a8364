#!/bin/sh
# The browser tests' inputs (CTest fixture "web pages"): the bundled model's 16-token run recorded
# with every layer's attention and exported as a page (export-html), the same run with --html, a
# what-if run compared with it (--compare), the run within a size budget, and the course site with the documentation (llama-site,
# as `make site`).
# usage: make_pages.sh WALKTHROUGH LLAMA_SITE ASSETS_DIR CHAPTERS_DIR DOCS_DIR OUTDIR
set -eu
walkthrough=$1 site=$2 assets=$3 chapters=$4 docs=$5 out=$6
rm -rf "$out"
mkdir -p "$out"
prompt="In the beginning God created"
"$walkthrough" --model "$assets/model" --prompt "$prompt" -n 16 -q --threads 1 \
    --trace "$out/run.trace" --trace-presoftmax --html "$out/run-live.html" >/dev/null
"$walkthrough" export-html "$out/run.trace" --out "$out/run.html"
# Within a budget smaller than the whole page (1.92 MB): the prefill keeps its arithmetic, the last steps not.
"$walkthrough" export-html "$out/run.trace" --page-budget 1.85 --out "$out/budget.html" > "$out/budget.txt"
# A 30-odd-token prompt: the logit lens read through a window of positions, on a phone and on paper.
"$walkthrough" --model "$assets/model" -n 2 -q --threads 1 --html "$out/long.html" \
    --prompt "In the beginning God created the heaven and the earth. And the earth was without form, and void; and darkness was upon the face of the deep." >/dev/null
"$walkthrough" --model "$assets/model" --prompt "$prompt" -n 16 -q --threads 1 --ablate-head 3:2 \
    --trace "$out/ablated.trace" >/dev/null
"$walkthrough" export-html "$out/run.trace" --compare "$out/ablated.trace" --out "$out/compare.html"
# A batch of two sequences with a context shift (trace format version 3) and its page.
"$walkthrough" batch --model "$assets/model" -q --threads 1 -p "And God said" -p "In the beginning" --parallel 2 -n 16 \
    --max-seq-len 24 --context-shift --keep 2 --trace "$out/batch.trace" >/dev/null
"$walkthrough" export-html "$out/batch.trace" --out "$out/batch.html" >/dev/null
"$site" --chapters "$chapters" --docs "$docs" --trace "$out/run.trace" --out "$out/site"
# Activation patching (chapter 20's Moses/Joseph pair) as a patch trace and its page; a run under --json.
"$walkthrough" patch --model "$assets/model" --clean 'And Moses went unto Aaron. And Aaron said unto' \
    --corrupt 'And Joseph went unto Aaron. And Aaron said unto' --answer ' Moses' --wrong ' Joseph' --trace "$out/patch.trace" >/dev/null
"$walkthrough" export-html "$out/patch.trace" --out "$out/patch.html"
"$walkthrough" --model "$assets/model" --prompt "The answer:" -n 3 -q --threads 1 --json --html "$out/grammar.html" >/dev/null
