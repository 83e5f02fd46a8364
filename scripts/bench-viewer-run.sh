#!/usr/bin/env bash
# What a viewer's run costs against the CLI's run that records the same things (issue 48, item 10;
# docs/viewer.md, "What a run costs"): the bundled model, the same greedy 400 tokens, timed in turn
# A B C D E, A B C D E, ... so a busy machine slows every command alike; medians of RUNS rounds.
#   scripts/bench-viewer-run.sh [BUILD_DIR]     (RUNS=5 by default; needs xvfb-run)
# The CLI's figures are whole processes (/usr/bin/time: its start-up and model load are 0.05 s);
# the viewer's are its run alone, from Run to the run's end with its trace written (the script fact
# run-seconds), without the window, the font and the model's load; the viewer's whole process is
# printed beside it.
set -euo pipefail
build=${1:-build}
runs=${RUNS:-5}
tokens=${TOKENS:-400}
cli=$build/walkthrough/llama-walkthrough
viewer=$build/viewer/llama-viewer
prompt="In the beginning God created the heaven and the earth."
out=$(mktemp -d /tmp/bench-viewer-run.XXXXXX)
trap 'rm -rf "$out"' EXIT

for record in off on; do
    cat >"$out/viewer-$record.txt" <<EOF
load
mode completion
prompt "$prompt"
max-tokens $tokens
temperature 0
record-trace $record
run
expect generated $tokens
print-fact run-seconds
quit
EOF
done

# A command's wall seconds (the whole process), appended to $out/NAME.
time_cli() {
    local name=$1
    shift
    /usr/bin/time -f %e -o "$out/time" "$cli" --model assets/model -q -p "$prompt" -n "$tokens" "$@" >/dev/null
    cat "$out/time" >>"$out/$name"
}
# The viewer's run (run-seconds) to $out/NAME, its whole process to $out/NAME-process.
time_viewer() {
    local name=$1 record=$2
    /usr/bin/time -f %e -o "$out/time" xvfb-run -a -s "-screen 0 1280x800x24" "$viewer" --script "$out/viewer-$record.txt" >"$out/stdout" 2>&1 ||
        { cat "$out/stdout" >&2; exit 1; }
    sed -n 's/^run-seconds //p' "$out/stdout" >>"$out/$name"
    cat "$out/time" >>"$out/$name-process"
}
median() { sort -g "$out/$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
spread() { sort -g "$out/$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s", lo, hi}'; }

echo "bundled model, $tokens tokens, greedy; $runs rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
time_cli warmup  # the model's file in the page cache
for ((i = 1; i <= runs; i++)); do
    time_cli cli-plain
    time_cli cli-trace --trace "$out/cli.trace"
    time_cli cli-presoftmax --trace "$out/cli.trace" --trace-presoftmax
    time_viewer viewer-off off
    time_viewer viewer-on on
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-44s %8s  %s\n' "median seconds (min-max)" median spread
for name in cli-plain cli-trace cli-presoftmax viewer-off viewer-off-process viewer-on viewer-on-process; do
    printf '%-44s %8s  %s\n' "$name" "$(median $name)" "$(spread $name)"
done
# The ratio of the medians, and the median of the rounds' own ratios (a round's commands ran
# seconds apart, so a slow spell of the machine slows both sides of its ratio alike).
ratio() {
    paste "$out/$1" "$out/$2" | awk '{printf "%.3f\n", $1 / $2}' >"$out/$1-by-$2"
    awk -v a="$(median "$1")" -v b="$(median "$2")" -v rounds="$(spread "$1-by-$2")" -v m="$(median "$1-by-$2")" \
        'BEGIN {printf "%.2fx (medians %s / %s s; rounds %sx, their median %.2fx)", a / b, a, b, rounds, m}'
}
echo "viewer run, recording / CLI --trace --trace-presoftmax (the same records): $(ratio viewer-on cli-presoftmax)"
echo "viewer run, recording / CLI --trace: $(ratio viewer-on cli-trace)"
echo "viewer run, not recording / CLI --trace: $(ratio viewer-off cli-trace)"
echo "viewer run, not recording / plain CLI: $(ratio viewer-off cli-plain)"
