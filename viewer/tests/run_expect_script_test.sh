#!/bin/sh
# Runs a script whose `expect` lines check what the viewer shows (state/script_facts.h) under a
# virtual X server of the given size; a failed expectation exits non-zero naming its line.
# Usage: run_expect_script_test.sh LLAMA_VIEWER SCRIPT OUTPUT_DIR WIDTHxHEIGHT
set -eu
viewer=$1 script=$2 out=$3 size=$4
rm -rf "$out"
mkdir -p "$out"
cd "$out"
# Sanitizer builds set LLAMA_VIEWER_PRELOAD (see tests/sanitizers/README.md).
xvfb-run -a -s "-screen 0 ${size}x24" env ${LLAMA_VIEWER_PRELOAD:+LD_PRELOAD=$LLAMA_VIEWER_PRELOAD} "$viewer" --script "$script" \
    > viewer.out 2>&1 || { cat viewer.out; exit 1; }
cat viewer.out
grep -q "script finished" viewer.out
