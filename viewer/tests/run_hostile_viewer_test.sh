#!/bin/sh
# The viewer is as strict as the CLI (issue 24), under a virtual X server:
#  1. --font with a file that is no font (random bytes, a truncated TrueType file, text, a folder,
#     a missing path) falls back to the built-in font with a message naming the file; the window runs.
#  2. A script's failures exit non-zero with a message naming the script line: a screenshot to a
#     missing folder, to /dev/full or to a folder, a failed export, numbers out of range or NaN.
#  3. A trace with the most extreme values the trace reader accepts (make_hostile_trace.py: the
#     largest vocabulary, infinite and NaN statistics and values) loads, replays and every panel draws.
# Usage: run_hostile_viewer_test.sh LLAMA_VIEWER LLAMA_WALKTHROUGH PNG_CHECK MODEL_DIR FONT OUTPUT_DIR
set -eu
viewer=$1 walkthrough=$2 check=$3 model=$4 font=$5 out=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out"
cd "$out"
fail() { echo "FAILED: $*"; exit 1; }
# Runs the viewer on a script; prints its exit code (stdout and stderr in $1.out).
run_viewer() {
    name=$1
    shift
    set +e
    xvfb-run -a -s "-screen 0 1366x768x24" env ${LLAMA_VIEWER_PRELOAD:+LD_PRELOAD=$LLAMA_VIEWER_PRELOAD} "$viewer" "$@" > "$name.out" 2>&1
    code=$?
    set -e
    echo $code
}

# 1. Fonts that are not fonts.
printf 'print "script finished"\nscreenshot font.png\nquit\n' > font.txt
head -c 4096 /dev/urandom > random.ttf
head -c 3000 "$font" > truncated.ttf
echo "this is a text file, not a font" > text.ttf
mkdir -p folder.ttf
for f in random.ttf truncated.ttf text.ttf folder.ttf missing.ttf; do
    code=$(run_viewer "font-$f" --font "$f" --script font.txt)
    test "$code" -eq 0 || { cat "font-$f.out"; fail "--font $f: exit $code, expected 0 (the built-in font)"; }
    grep -q "^--font '$f': .*the built-in font" "font-$f.out" || { cat "font-$f.out"; fail "--font $f: no message naming the file"; }
    grep -q "script finished" "font-$f.out" || fail "--font $f: the script did not run"
    mv font.png "font-$f.png"
    "$check" "font-$f.png" 1366 768
done
echo "fonts: 5 bad files fell back with a message"

# 2. Script failures name their line and exit non-zero.
mkdir -p a-folder
expect_failure() {
    # expect_failure NAME LINE SCRIPT-TEXT: the script fails at line LINE with a message saying so.
    name=$1 line=$2
    printf '%b' "$3" > "$name.txt"
    code=$(run_viewer "$name" --script "$name.txt")
    test "$code" -ne 0 || { cat "$name.out"; fail "$name: exit 0"; }
    grep -q "script error: line $line ([a-z-]*): [^l]" "$name.out" || { cat "$name.out"; fail "$name: no message naming line $line (once)"; }
    echo "$name: exit $code, $(grep 'script error' "$name.out" | head -1)"
}
expect_failure screenshot-missing-folder 2 'print start\nscreenshot no/such/folder/x.png\nquit\n'
expect_failure screenshot-dev-full 2 'print start\nscreenshot /dev/full\nquit\n'
expect_failure screenshot-folder 3 '# a folder is not a file\nprint start\nscreenshot a-folder\nquit\n'
expect_failure export-slide-missing-folder 1 'export-slide no/such/folder/slide.png\nquit\n'
expect_failure export-csv-folder 5 "load model $model\nmax-tokens 1\nstep-to scores_softmax 1\npanel heatmap\nexport-csv a-folder\nquit\n"
grep -q "a-folder.*folder" export-csv-folder.out || fail "export-csv to a folder: the message does not say so"
expect_failure export-npy-no-data 1 'export-npy x.npy\nquit\n'
expect_failure max-tokens-negative 2 'print start\nmax-tokens -1\nquit\n'
expect_failure measure-fps-nan 1 'measure-fps nan\nquit\n'
expect_failure measure-fps-huge 1 'measure-fps 1e12\nquit\n'
expect_failure scale-nan 1 'scale nan\nquit\n'
expect_failure temperature-words 1 'temperature warm\nquit\n'
test ! -e x.npy || fail "a failed export left x.npy"

# 3. The most extreme trace the reader accepts is drawn by every panel.
"$walkthrough" --model "$model" -q -n 2 -p "In the beginning God created" --trace plain.trace > cli.out 2>&1 || { cat cli.out; fail "recording"; }
python3 "$here/make_hostile_trace.py" plain.trace extreme.trace
{
    echo "load trace extreme.trace"
    echo "run"
    for p in map shapes heatmap mask attention logits lens kv-cache tokens compare chapter; do
        echo "panel $p"
        echo "screenshot extreme-$p.png"
    done
    echo "step-to scores_softmax 1"
    echo "head 1"
    echo "cell 0 0"
    echo "panel attention"
    echo "screenshot extreme-attention-cell.png"
    echo 'print "script finished"'
    echo "quit"
} > extreme.txt
code=$(run_viewer extreme --script extreme.txt)
test "$code" -eq 0 || { cat extreme.out; fail "the extreme trace: exit $code"; }
grep -q "script finished" extreme.out || { cat extreme.out; fail "the extreme trace's script did not finish"; }
for png in extreme-*.png; do "$check" "$png" 1366 768; done
echo "the extreme trace: every panel drawn"
echo "all hostile viewer checks passed"
