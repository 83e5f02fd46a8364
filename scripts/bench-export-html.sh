#!/usr/bin/env bash
# docs/web-and-site.md's export figures: export-html of a 256-position run (a 198-token prompt from
# assets/text/jude.txt and 58 generated tokens, every attention cell's inputs recorded), at the
# default 20 MB budget and with no budget; medians of farm-bench's runs, and the pages' sizes.
#   scripts/bench-export-html.sh [BUILD_DIR]   (needs farm-bench; run it on an otherwise idle machine)
set -euo pipefail
build=${1:-build}
cli=$build/walkthrough/llama-walkthrough
out=/tmp/bench-export-html
mkdir -p "$out"
prompt=$(head -c 790 assets/text/jude.txt)
"$cli" --prompt "$prompt" -n 58 -q --threads 1 --trace "$out/long.trace" --trace-presoftmax >/dev/null
for budget in 20 0; do
    printf '\n== export-html, 256 positions, --page-budget %s\n' "$budget"
    farm-bench -n "${RUNS:-5}" --timeout 600 -- "$cli" export-html "$out/long.trace" --page-budget "$budget" --out "$out/page-$budget.html"
    printf 'page: %s bytes\n' "$(stat -c %s "$out/page-$budget.html")"
done
