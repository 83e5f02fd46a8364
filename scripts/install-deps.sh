#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, only those missing (apt-get; sudo when not root).
#   install-deps.sh cli   what llama-walkthrough needs to build and run (`make run`)
#   install-deps.sh       everything: the viewer, the site, the test suite with its browser, Xvfb and fuzz tests
set -euo pipefail
cli=(
  g++ cmake make pkg-config
  libfmt-dev nlohmann-json3-dev libpcre2-dev libcli11-dev libsentencepiece-dev libmd4c-dev
)
rest=(
  catch2
  libimgui-dev libglfw3-dev libgl-dev libstb-dev libmd4c-html0-dev
  xvfb xauth libgl1-mesa-dri fonts-dejavu-core
  clang-14 libfuzzer-14-dev
  python3 python3-numpy python3-regex chromium bible-kjv
  emscripten node-acorn dpkg-dev
  clang-19 lld-19
)
case "${1:-all}" in
  cli) packages=("${cli[@]}") ;;
  all) packages=("${cli[@]}" "${rest[@]}") ;;
  *) echo "usage: $0 [cli|all]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm build the tokenizer test's reference, drive chromium in the web page tests and bring
# the live page its service worker (npm packages); any install of them will do. The CLI needs neither.
[ "${1:-all}" = cli ] || command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
