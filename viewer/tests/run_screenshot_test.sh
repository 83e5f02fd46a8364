#!/bin/sh
# The classroom screenshots: the map and every panel on a 1366x768 laptop and a 1920x1080
# projector (the window opens in the screen's work area), at UI scale 1.0 and 2.0, with a short
# and a 128-token prompt; then every picture is checked for real content, and the map for its
# lit stage and the stages that ran.
# Usage: run_screenshot_test.sh LLAMA_VIEWER PNG_CHECK SCRIPT OUTPUT_DIR
set -eu
viewer=$1 check=$2 script=$3 out=$4
rm -rf "$out"
for screen in 1366x768 1920x1080; do
    w=${screen%x*} h=${screen#*x}
    mkdir -p "$out/$screen"
    cd "$out/$screen"
    xvfb-run -a -s "-screen 0 ${screen}x24" env ${LLAMA_VIEWER_PRELOAD:+LD_PRELOAD=$LLAMA_VIEWER_PRELOAD} "$viewer" --script "$script" \
        > viewer.out 2>&1 || { cat viewer.out; exit 1; }
    grep -q "script finished" viewer.out || { cat viewer.out; exit 1; }
    count=0
    for png in p*-s[12]-*.png; do
        case $png in
            *-map*.png) "$check" "$png" "$w" "$h" --colour 240,170,40,4 --colour 58,84,128,4 ;;
            *-attention*.png) "$check" "$png" "$w" "$h" --colour 253,231,37,40 ;;
            *-mask.png) "$check" "$png" "$w" "$h" --colour 235,235,225,2 --colour 40,40,48,2 ;;
            *) "$check" "$png" "$w" "$h" ;;
        esac
        count=$((count + 1))
    done
    # 2 prompts x 2 scales x (11 panels + the enlarged head) + 2 decode maps.
    test "$count" -eq 50 || { echo "expected 50 screenshots at $screen, found $count"; exit 1; }
    for p in p10 p128; do
        "$check" $p-map-caption.png any any --colour 240,170,40,4
        "$check" $p-slide-map.png 1920 1080 --colour 240,170,40,4
        "$check" $p-slide-attention.png 1920 1080 --colour 253,231,37,40
    done
    cd - > /dev/null
done
echo "all classroom screenshots checked"
