// The AVX2 + FMA + F16C path (compiled with -march=x86-64-v3, see CMakeLists.txt).
#include "ml/kernels/x86_kernels.inl"

namespace llama::ml::kernels {

namespace {
const KernelSet kAvx2{"avx2", dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, bf16RowsPrewidened, widenedRowLength, widenRows, kLanes, kPanelRows, unpackRows, panel, nullptr, nullptr, nullptr, nullptr};
}

const KernelSet* avx2Kernels() { return &kAvx2; }

}  // namespace llama::ml::kernels
