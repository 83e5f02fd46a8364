// The AVX-512 path: F, BW, VL and VNNI (compiled with -march=x86-64-v4 -mavx512vnni, see
// CMakeLists.txt).
#include "ml/kernels/x86_kernels.inl"

namespace llama::ml::kernels {

namespace {
const KernelSet kAvx512{"avx512", dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, bf16RowsPrewidened, widenedRowLength, widenRows, kLanes, kPanelRows, unpackRows, panel, unpackByteRows, bytePanel, nullptr, nullptr};
}  // namespace

const KernelSet* avx512Kernels() { return &kAvx512; }

}  // namespace llama::ml::kernels
