#!/bin/sh
# Runs a scripted walk-through under a virtual X server, then checks that its screenshots are
# real renders: the right size, many colours, and the colours each panel must contain.
# Usage: run_script_test.sh LLAMA_VIEWER PNG_CHECK SCRIPT OUTPUT_DIR
set -eu
viewer=$1 check=$2 script=$3 out=$4
"$(dirname "$0")/run_expect_script_test.sh" "$viewer" "$script" "$out" 1280x800
cd "$out"

# Viridis' ends: probability 1 (the first token attends only to itself) and 0 (masked).
"$check" attention_grid.png 1280 800 --colour 253,231,37 --colour 68,1,84
"$check" attention.png 1280 800 --colour 253,231,37 --colour 68,1,84 --colour 255,80,80,2
"$check" attention_panel.png any any --colour 253,231,37
# Before the softmax: the -inf colour and the diverging ramp's white middle.
"$check" attention_masked.png 1280 800 --colour 40,40,48,2 --colour 247,247,247,12
# The mask grid's 0 cells and -inf cells.
"$check" mask.png 1280 800 --colour 235,235,225,2 --colour 40,40,48,2
# A BF16 box.
"$check" shapes.png 1280 800 --colour 70,110,170,2
"$check" heatmap.png 1280 800
"$check" kv_cache.png 1280 800 --colour 240,160,40,2
"$check" chapter.png 1280 800
# The sampled token's bar.
"$check" logits.png 1280 800 --colour 240,170,40,2
# Step token holds where the new token's logit lens exists: the lens grid, not "No logit lens".
"$check" lens_step_token.png 1280 800
"$check" attention_decode.png 1280 800 --colour 253,231,37,40
"$check" scaled.png 1280 800
test -s scores.npy
test -s scores.csv
echo "all screenshots checked"
