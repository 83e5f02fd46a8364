#!/bin/sh
# The viewer's KV cache check against the CLI's: llama-walkthrough --no-kv-cache prints its verdict
# on every logit of the same prompt (the bundled model, greedy, 3 tokens, as the script runs it);
# the script's @CLI_VERDICT@ becomes that line, and its `expect` then holds the viewer to it.
# Usage: run_kv_cache_check_test.sh LLAMA_VIEWER LLAMA_WALKTHROUGH SCRIPT OUTPUT_DIR
set -eu
viewer=$1 cli=$2 script=$3 out=$4
here=$(dirname "$0")
mkdir -p "$out"
"$cli" --prompt "In the beginning God created" -n 3 --temperature 0 --no-kv-cache -q > "$out/cli.out" 2>&1 || { cat "$out/cli.out"; exit 1; }
verdict=$(grep -E "^(Logits|The two runs differ)" "$out/cli.out") || { echo "no verdict in the CLI's output:"; cat "$out/cli.out"; exit 1; }
echo "CLI: $verdict"
# awk's gsub reads & and \ in the replacement: escaped first.
escaped=$(printf '%s' "$verdict" | sed 's/[&\\]/\\\\&/g')
awk -v v="$escaped" '{ gsub(/@CLI_VERDICT@/, v); print }' "$script" > "$out/kv_cache_checks.txt"
grep -q "@CLI_VERDICT@" "$out/kv_cache_checks.txt" && { echo "the verdict was not put into the script"; exit 1; }
exec "$here/run_expect_script_test.sh" "$viewer" "$out/kv_cache_checks.txt" "$out/run" 1366x768
