#!/bin/sh
# Regenerates the chapters' figures (docs/figures/): the viewer runs the sections of
# scripts/figures.txt on the bundled model under a virtual 1600x900 screen and exports each panel
# with its caption (model, prompt, token step, layer, stage). Every figure is a real run.
# Usage: scripts/make-figures.sh [--viewer PATH] [--walkthrough PATH] [--out DIR] [FIGURE...]
#   FIGURE: a section of scripts/figures.txt ("# figure NAME"); none: all of them.
#   Defaults: build/viewer/llama-viewer, build/walkthrough/llama-walkthrough, docs/figures.
#   A section that loads patching-moses.trace gets it from `llama-walkthrough patch --trace` first.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
viewer=$root/build/viewer/llama-viewer
walkthrough=$root/build/walkthrough/llama-walkthrough
out=$root/docs/figures
while [ $# -gt 0 ]; do
    case $1 in
        --viewer) viewer=$(realpath "$2"); shift 2 ;;
        --walkthrough) walkthrough=$(realpath "$2"); shift 2 ;;
        --out) mkdir -p "$2"; out=$(cd "$2" && pwd); shift 2 ;;
        -*) echo "unknown option $1 (usage: $0 [--viewer PATH] [--out DIR] [FIGURE...])" >&2; exit 2 ;;
        *) break ;;
    esac
done
figures=$root/scripts/figures.txt
for name in "$@"; do
    grep -qx "# figure $name" "$figures" || { echo "no figure '$name' in $figures" >&2; exit 2; }
done
[ -x "$viewer" ] || { echo "no viewer at $viewer: build it first (cmake --build build --target llama-viewer)" >&2; exit 1; }
mkdir -p "$out"
script=$(mktemp)
trap 'rm -f "$script"' EXIT
# The lines before the first section (loading the model), then the chosen sections.
awk -v names=" $* " '
    /^# figure / { section = $3; next }
    section == "" || names == "  " || index(names, " " section " ") { print }
' "$figures" > "$script"
printf 'print "figures finished"\nquit\n' >> "$script"
cd "$out"
# Chapter 20's activation patching, as a patch trace for the viewer to open.
if grep -q '^load trace patching-moses.trace$' "$script"; then
    trap 'rm -f "$script" "$out/patching-moses.trace"' EXIT
    "$walkthrough" patch --model "$root/assets/model" --clean 'And Moses went unto Aaron. And Aaron said unto' \
        --corrupt 'And Joseph went unto Aaron. And Aaron said unto' --answer ' Moses' --wrong ' Joseph' --trace patching-moses.trace > /dev/null
fi
# Sanitizer builds set LLAMA_VIEWER_PRELOAD (see tests/sanitizers/README.md).
xvfb-run -a -s "-screen 0 1600x900x24" env ${LLAMA_VIEWER_PRELOAD:+LD_PRELOAD=$LLAMA_VIEWER_PRELOAD} "$viewer" --script "$script" \
    > viewer.out 2>&1 || { cat viewer.out >&2; rm -f viewer.out; exit 1; }
grep -q "figures finished" viewer.out || { cat viewer.out >&2; rm -f viewer.out; exit 1; }
grep '^wrote ' viewer.out
rm -f viewer.out
