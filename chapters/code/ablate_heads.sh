#!/bin/sh
# Silences each head of the given layers in turn (--ablate-head L:H, both from 1) and says whether
# the greedy text of the bundled model changes: its first generated token, and its first 8.
# usage: ablate_heads.sh "PROMPT" LAYER...   (llama-walkthrough on PATH)
set -e
prompt=$1; shift
text() { n=$1; shift; llama-walkthrough -q -n "$n" -p "$prompt" "$@" 2>/dev/null | sed -n '/^What-if/d; /^Prompt tokens:/d; p' | tr '\n' '~'; }
first=$(text 1); eight=$(text 8)
count=0; c1=0; c8=0
for layer in "$@"; do
    line="layer $layer:"
    for head in 1 2 3 4 5 6 7 8; do
        count=$((count + 1)); mark=.
        if [ "$(text 8 --ablate-head "$layer:$head")" != "$eight" ]; then c8=$((c8 + 1)); mark=8; fi
        if [ "$(text 1 --ablate-head "$layer:$head")" != "$first" ]; then c1=$((c1 + 1)); mark=1; fi
        line="$line $head$mark"
    done
    echo "$line"
done
echo "heads silenced: $count; first token changed: $c1; first 8 tokens changed: $c8"
