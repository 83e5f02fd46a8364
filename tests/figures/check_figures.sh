#!/bin/sh
# The chapters' figures (docs/figures, made by scripts/make-figures.sh from real runs).
# Usage: check_figures.sh committed PNG_CHECK
#          every forward-pass chapter (a chapter with stage sections, and chapter 6, which draws
#          the whole model) shows a figure; every figure a chapter shows exists, is named in its
#          caption's make-figures.sh command, is made by scripts/figures.txt and is a real render
#        check_figures.sh regenerate PNG_CHECK LLAMA_VIEWER OUTPUT_DIR FIGURE
#          runs make-figures.sh for one figure and checks what it writes, so the script cannot rot
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=$1 check=$2
figures=$root/scripts/figures.txt

# A real render: png_check's colour count, a share of the picture that is not background (an empty
# panel is about 5%), and colours each kind of figure must show.
check_png() {  # FILE
    case $(basename "$1") in
        *map*.png) "$check" "$1" any any --covered 15 --colour 240,170,40,4 --colour 58,84,128,4 ;;  # the lit stage, stages that ran
        attention*.png) "$check" "$1" any any --covered 15 --colour 253,231,37,40 ;;               # viridis' 1
        mask.png) "$check" "$1" any any --covered 12 --colour 235,235,225,2 --colour 40,40,48,2 ;;  # 0 and -inf cells
        rope*.png|rmsnorm*.png|ffn*.png) "$check" "$1" any any --covered 30 ;;                      # a heatmap, not an empty panel
        *) "$check" "$1" any any --covered 12 ;;
    esac
}

size_of() {  # FILE: WIDTHxHEIGHT, as png_check reads it
    "$check" "$1" any any | sed -n 's/.*: \([0-9]*x[0-9]*\), .*/\1/p'
}

if [ "$mode" = committed ]; then
    failures=0
    fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
    cd "$root/chapters"
    for chapter in *.md; do
        grep -q '<!-- stage: ' "$chapter" || [ "$chapter" = 06-architecture.md ] || continue
        refs=$(grep -o '](\.\./docs/figures/[^)]*\.png)' "$chapter" | sed 's/^](//; s/)$//' || true)
        [ -n "$refs" ] || { fail "$chapter shows no figure from docs/figures"; continue; }
        for ref in $refs; do
            png=$(basename "$ref" .png)
            [ -f "$ref" ] || { fail "$chapter: $ref does not exist"; continue; }
            grep -qE "^(export-png|screenshot) $png\.png$" "$figures" || fail "$chapter: no section of scripts/figures.txt makes $png.png"
            # The caption names the command that made the figure: make-figures.sh SECTION, the section that writes it.
            section=$(awk -v f="$png.png" '/^# figure /{s=$3} $2==f && ($1=="export-png" || $1=="screenshot"){print s}' "$figures")
            grep -q "scripts/make-figures.sh $section\`" "$chapter" || fail "$chapter: $png.png's caption does not give \`scripts/make-figures.sh $section\`"
            check_png "$ref" || fail "$chapter: $ref is not a real render"
        done
        echo "$chapter: $(echo $refs | wc -w) figure(s)"
    done
    [ "$failures" -eq 0 ] || { echo "$failures problem(s)"; exit 1; }
    echo "every forward-pass chapter shows a checked figure"
elif [ "$mode" = regenerate ]; then
    viewer=$3 out=$4 figure=$5
    rm -rf "$out"
    "$root/scripts/make-figures.sh" --viewer "$viewer" --out "$out" "$figure"
    made=$(ls "$out"/*.png)
    [ -n "$made" ] || { echo "make-figures.sh $figure wrote nothing"; exit 1; }
    for png in $made; do
        check_png "$png"
        # The committed figure is what this script makes: the same picture size.
        committed=$root/docs/figures/$(basename "$png")
        [ -f "$committed" ] || { echo "$committed is not committed"; exit 1; }
        [ "$(size_of "$png")" = "$(size_of "$committed")" ] \
            || { echo "$png is $(size_of "$png"), the committed $committed $(size_of "$committed"): run scripts/make-figures.sh"; exit 1; }
    done
else
    echo "usage: $0 committed PNG_CHECK | regenerate PNG_CHECK LLAMA_VIEWER OUTPUT_DIR FIGURE" >&2
    exit 2
fi
