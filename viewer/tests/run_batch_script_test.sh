#!/bin/sh
# Records a batch of two sequences (`llama-walkthrough batch --trace`, with a context shift),
# then runs viewer/scripts/batch_checks.txt against it at 1366x768: its `expect` lines check what
# the Batch panel shows ubatch by ubatch, and its screenshots must hold the sequences' colours.
# Usage: run_batch_script_test.sh LLAMA_WALKTHROUGH LLAMA_VIEWER PNG_CHECK MODEL SCRIPT OUTPUT_DIR
set -eu
walkthrough=$1 viewer=$2 check=$3 model=$4 script=$5 out=$6
rm -rf "$out"
mkdir -p "$out"
"$walkthrough" batch --model "$model" -q --threads 1 -p "And God said" -p "In the beginning" --parallel 2 -n 16 \
    --max-seq-len 24 --context-shift --keep 2 --trace "$out/batch.trace" > "$out/batch.out"
# The script runs in OUTPUT_DIR/viewer and loads ../batch.trace.
"$(dirname "$0")/run_expect_script_test.sh" "$viewer" "$script" "$out/viewer" 1366x768
cd "$out/viewer"
# Sequence 1's and 2's cells (state/batch_view.cpp's palette) and the free cells.
"$check" batch_prompts.png 1366 768 --colour 230,120,40,2 --colour 60,160,230,2 --colour 50,50,58,2
"$check" batch_shift.png 1366 768 --colour 230,120,40,2 --colour 60,160,230,2
