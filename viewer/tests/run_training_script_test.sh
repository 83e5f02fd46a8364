#!/bin/sh
# Records the first window of a tiny training step (`llama-walkthrough train --trace`), then runs
# viewer/scripts/training_checks.txt against it at 1366x768: its `expect` lines check the Map's
# backward column and a gradient's norm, and its screenshots must hold the backward boxes' colour.
# Usage: run_training_script_test.sh LLAMA_WALKTHROUGH LLAMA_VIEWER PNG_CHECK ASSETS SCRIPT OUTPUT_DIR
set -eu
walkthrough=$1 viewer=$2 check=$3 assets=$4 script=$5 out=$6
rm -rf "$out"
mkdir -p "$out"
"$walkthrough" train --tokenizer "$assets/model/tokenizer.model" --text "$assets/samples.txt" --seq-len 32 --batch 2 --steps 1 \
    --dim 64 --n-layers 2 --n-heads 4 --n-kv-heads 2 --multiple-of 32 --out "$out/run" --trace "$out/train.trace" > "$out/train.out"
# The script runs in OUTPUT_DIR/viewer and loads ../train.trace.
"$(dirname "$0")/run_expect_script_test.sh" "$viewer" "$script" "$out/viewer" 1366x768
cd "$out/viewer"
# The backward boxes that ran (map_panel.cpp's kRanBackward) and the shown stage.
"$check" training_map.png 1366 768 --colour 112,72,128,2 --colour 240,170,40,2
"$check" training_map_done.png 1366 768 --colour 240,170,40,2
"$check" training_heatmap.png 1366 768
