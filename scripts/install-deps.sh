#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, only those missing (apt-get; sudo when not root).
set -euo pipefail
packages=(
  g++ cmake make pkg-config
  libfmt-dev nlohmann-json3-dev libpcre2-dev libcli11-dev catch2
  libimgui-dev libglfw3-dev libstb-dev libgl-dev libsentencepiece-dev libmd4c-dev libmd4c-html0-dev
  xvfb xauth libgl1-mesa-dri fonts-dejavu-core
  clang-14 libfuzzer-14-dev
  python3 python3-numpy chromium
  emscripten node-acorn dpkg-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm build the tokenizer test's reference and drive chromium in the web page tests (npm
# packages); any install of them will do.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
