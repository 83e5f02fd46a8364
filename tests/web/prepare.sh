#!/bin/sh
# Installs the browser tests' npm packages (puppeteer-core, which drives Debian's chromium and
# downloads no browser), pinned by package-lock.json. Called by `make fixtures`.
set -eu
cd "$(dirname "$0")"
# node_modules is git-ignored; reinstall only when the lock file changed.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
fi
