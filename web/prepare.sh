#!/bin/sh
# Installs the live page's npm package, coi-serviceworker (pinned by package-lock.json), which
# web/CMakeLists.txt copies next to the page. Called by `make web`. Needs node + npm and the npm
# registry the first time.
set -eu
cd "$(dirname "$0")"
# node_modules is git-ignored; reinstall only when the lock file changed.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
fi
