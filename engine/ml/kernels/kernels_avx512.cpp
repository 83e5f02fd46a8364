// The AVX-512 path: F, BW, VL and VNNI (compiled with -march=x86-64-v4 -mavx512vnni, see
// CMakeLists.txt).
#include "ml/kernels/x86_kernels.inl"

namespace llama::ml::kernels {

void bf16RowsAvx512Bf16(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo);

namespace {
const KernelSet kAvx512{"avx512", prepareBF16, dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, bf16RowsWidened, kLanes, kPanelRows, unpackRows, panel, unpackByteRows, bytePanel};
const KernelSet kAvx512Bf16{"avx512bf16", prepareBF16, dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, bf16RowsAvx512Bf16, kLanes, kPanelRows, unpackRows, panel, unpackByteRows, bytePanel};
}  // namespace

const KernelSet* avx512Kernels() { return &kAvx512; }
const KernelSet* avx512Bf16Kernels() { return &kAvx512Bf16; }

}  // namespace llama::ml::kernels
