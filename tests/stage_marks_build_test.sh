#!/bin/sh
# A stage mark is checked by the compiler: stage_marks_build.cpp with MARK=0 builds, and a
# misspelt field, a missing tensor, a missing number and a text made eagerly (a std::string
# instead of a function that makes it) each stop the build.
#   stage_marks_build_test.sh CXX ENGINE_DIR SOURCE
set -u
cxx=$1 engine=$2 src=$3
build() { "$cxx" -std=c++20 -fsyntax-only -I"$engine" -DMARK="$1" "$src" 2>&1; }
out=$(build 0) || { echo "the well-formed mark did not build:"; echo "$out"; exit 1; }
expect_error() {  # MARK, what the error must say
    if out=$(build "$1"); then echo "MARK=$1 built, but it must not"; exit 1; fi
    echo "$out" | grep -q "$2" || { echo "MARK=$1 failed, but not with '$2':"; echo "$out"; exit 1; }
    echo "MARK=$1 refused: $(echo "$out" | grep -m1 error)"
}
expect_error 1 "ffn_gaet"
expect_error 2 "ffn_gate"
expect_error 3 "Required"
expect_error 4 "LazyText"
