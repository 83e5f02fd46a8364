#!/usr/bin/env bash
# The libraries the WebAssembly build links that are not header-only, compiled for wasm32 from
# Debian's own source package (no prebuilt binary is downloaded): PCRE2, the tokenizers' Unicode
# pre-tokenizer regex. The header-only ones (nlohmann-json, fmt, CLI11, Catch2 2) are copied from
# their Debian packages, since the host's /usr/include must stay off a wasm compile's path (it
# brings glibc's headers). SentencePiece is left out of the browser build (its models are refused
# there with a message; see docs/web.md).
#   web/build-deps.sh OUT_DIR     -> OUT_DIR/threads/{include,lib} and OUT_DIR/single/{include,lib}
# (objects built with shared memory and without cannot be linked into one module: one of each).
# Needs emscripten, node-acorn and dpkg-dev (scripts/install-deps.sh --web installs them) and a
# deb-src entry for the machine's Debian archive, which this script adds when it is missing.
set -euo pipefail
out=$(realpath -m "$1")
[ -f "$out/.done" ] && exit 0
mkdir -p "$out/src"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# deb-src: a copy of the machine's main Debian entry (same archive, suite and key), sources only.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  main=/etc/apt/sources.list.d/debian.sources
  uri=$(awk '/^URIs:/ {print $2; exit}' "$main" 2>/dev/null || true)
  key=$(awk '/^Signed-By:/ {print $2; exit}' "$main" 2>/dev/null || true)
  uri=${uri:-http://deb.debian.org/debian}
  key=${key:-/usr/share/keyrings/debian-archive-keyring.gpg}
  printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: %s\n' "$uri" "$key" |
    $sudo tee /etc/apt/sources.list.d/llama-walkthrough-src.sources >/dev/null
  $sudo apt-get update -qq
fi

export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # emcc's JS optimizer needs Debian's acorn
cd "$out/src"
ls -d pcre2-*/ >/dev/null 2>&1 || apt-get source -qq pcre2 >/dev/null

pcre=$(ls -d pcre2-*/ | head -n 1)
for variant in threads single; do
  prefix="$out/$variant"
  flags=""
  [ "$variant" = threads ] && flags="-pthread"
  emcmake cmake -S "$pcre" -B "$out/pcre2-$variant" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DBUILD_SHARED_LIBS=OFF -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF -DPCRE2_SUPPORT_JIT=OFF \
    -DPCRE2_SUPPORT_UNICODE=ON -DCMAKE_C_FLAGS="$flags" >/dev/null
  cmake --build "$out/pcre2-$variant" -j "$(nproc)" >/dev/null
  cmake --install "$out/pcre2-$variant" >/dev/null
  for dir in nlohmann fmt CLI catch2; do cp -r "/usr/include/$dir" "$prefix/include/"; done
done
touch "$out/.done"
