#!/usr/bin/env bash
# docs/fidelity.md's compare-doc figures: its time on a debug log and a document of about 1 MB and of
# about 20 MB, to show that it grows linearly with their size. Both are real debug logs of the
# tiny synthetic model (dry runs: shapes only, so they are quick to write), the document's of
# another prompt length: every documented line has a candidate in every decode step of the log,
# and every line mismatches, so each one is searched for a documented line elsewhere (the cases
# that were quadratic). Plain and with --any-length. Medians of RUNS (default 3).
#   scripts/bench-compare-doc.sh [BUILD_DIR [SIZES_MB]]   (default: build "1 20")
set -euo pipefail
build=${1:-build}
sizes=${2:-1 20}
cli=$build/walkthrough/llama-walkthrough
out=/tmp/bench-compare-doc
runs=${RUNS:-3}
mkdir -p "$out"

# A dry run's log of `tokens` generated tokens after `prompt`.
write_log() {
  "$cli" --synthetic tiny --dry-run --max-seq-len $(($1 + 64)) -n "$1" -q -p "$2" --debug-log "$3" > /dev/null
}
# The medians of `runs` runs of compare-doc: wall seconds and CPU seconds (user + system; the
# machine is shared, so the wall time includes waiting for a core). Exit code 1, the mismatches,
# is expected.
median() { sort -n | awk '{ t[NR] = $1 } END { printf "%.2f", t[int((NR + 1) / 2)] }'; }
medians() {
  local times
  TIMEFORMAT='%R %U %S'
  times=$(for _ in $(seq "$runs"); do { time "$cli" compare-doc "$@" > /dev/null 2>&1 || [ $? -eq 1 ]; } 2>&1; done)
  echo "$(awk '{ print $1 }' <<< "$times" | median) / $(awk '{ print $2 + $3 }' <<< "$times" | median)"
}

write_log 10 "Tell me a short story" "$out/calibrate.log"
per_token=$(($(stat -c %s "$out/calibrate.log") / 10))
printf '%-8s %-10s %-10s %-8s %-22s %s\n' size log document lines "wall / CPU s" "--any-length: wall / CPU s"
for mb in $sizes; do
  tokens=$((mb * 1000000 / per_token))
  write_log "$tokens" "Tell me a short story" "$out/log-$mb.log"
  write_log "$tokens" "Hi" "$out/doc-$mb.md"
  plain=$(medians "$out/doc-$mb.md" --log "$out/log-$mb.log")
  any=$(medians "$out/doc-$mb.md" --log "$out/log-$mb.log" --any-length)
  printf '%-8s %-10s %-10s %-8s %-22s %s\n' "${mb} MB" "$(du -h "$out/log-$mb.log" | cut -f1)" "$(du -h "$out/doc-$mb.md" | cut -f1)" \
    "$(wc -l < "$out/doc-$mb.md")" "$plain" "$any"
done
