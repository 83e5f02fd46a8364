#!/bin/sh
# Writes a patch trace (llama-walkthrough patch --trace) beside OUTPUT_DIR, then runs SCRIPT on it
# with run_expect_script_test.sh (the script loads ../NAME-input/moses.trace and aligned.trace).
# Usage: run_patch_script_test.sh LLAMA_VIEWER LLAMA_WALKTHROUGH SCRIPT OUTPUT_DIR WIDTHxHEIGHT
set -eu
viewer=$1 walkthrough=$2 script=$3 out=$4 size=$5
input="$out-input"
rm -rf "$input"
mkdir -p "$input"
"$walkthrough" patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph went unto Aaron. And Aaron said unto' \
    --answer ' Moses' --wrong ' Joseph' --trace "$input/moses.trace" > "$input/patch.out"
"$walkthrough" patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph the son went unto Aaron. And Aaron said unto' \
    --answer ' Moses' --wrong ' Joseph' --align end --trace "$input/aligned.trace" >> "$input/patch.out"
exec "$(dirname "$0")/run_expect_script_test.sh" "$viewer" "$script" "$out" "$size"
