#!/bin/sh
# The book of Jude, from the Debian package bible-kjv (public domain), one verse per line, the
# reference prefix stripped as assets/make_corpus.py strips it: held-out text the bundled model
# never trained on (assets/README.md), for `llama-walkthrough perplexity` in the chapters.
set -eu
echo "Jude1:1-Jude1:25" | bible -f -l 0 | grep '^Jude1:' | sed 's/^Jude1:[0-9]* //' > "$(dirname "$0")/jude.txt"
