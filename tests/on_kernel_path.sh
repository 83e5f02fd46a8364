#!/bin/sh
# Runs a test command under one kernel path (LLAMA_KERNELS, engine/ml/kernels/kernel_set.h):
#   on_kernel_path.sh PATH COMMAND [ARGS...]
# so that a result holding on one instruction set only cannot pass CI on a machine whose default
# path is another. Exits 77 (CTest's skip) when the CPU cannot run PATH, or when PATH is the
# CPU's default one, which the rest of the suite runs already. The command gets a temporary
# folder of its own (TMPDIR): CTest runs it beside the same tests on the default path, and some
# write files under fixed names there.
set -eu
path=$1
shift
has() { grep -qw "$1" /proc/cpuinfo; }
best=generic
if has avx2 && has fma && has f16c; then best=avx2; fi
if [ $best = avx2 ] && has avx512f && has avx512bw && has avx512vl && has avx512_vnni; then best=avx512; fi
if [ $best = avx512 ] && has avx512_bf16; then best=avx512bf16; fi
case $path in
    generic) ;;
    avx2) [ $best != generic ] || { echo "this CPU has no AVX2: the avx2 path is not run"; exit 77; } ;;
    avx512) case $best in avx512*) ;; *) echo "this CPU has no AVX-512 with VNNI: the avx512 path is not run"; exit 77 ;; esac ;;
    avx512bf16) [ $best = avx512bf16 ] || { echo "this CPU has no AVX512_BF16: the avx512bf16 path is not run"; exit 77; } ;;
    *) echo "unknown kernel path $path" >&2; exit 2 ;;
esac
if [ "$path" = $best ]; then echo "$path is this CPU's default path: the suite ran it already"; exit 77; fi
TMPDIR=$(mktemp -d)
export TMPDIR
status=0
LLAMA_KERNELS=$path "$@" || status=$?
rm -rf "$TMPDIR"
exit $status
