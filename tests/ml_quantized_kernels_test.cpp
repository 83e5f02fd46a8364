// LinearTransformation's kernel paths (kernel_set.h) against the reference path, which decodes
// block-quantized weights to F32 and dots them in F32. The integer kernels quantize x to 8 bits
// per block, so they differ from the reference by that rounding, and no more: each element of
// x moves by at most half its block's step d / 2 = amax / 254, so |y - reference| is bounded by
// sum_i |w_i| * amax(block of x_i) / 254 (plus F32 rounding). The test computes that bound for
// every output element. The paths compute the same integer block sums and turn them into the
// same F32 terms, added in the same order (kernel_set.h), so they agree with each other exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "ml/kernels/kernel_set.h"
#include "ml/ops.h"
#include "ml_test_util.h"
#include "tensor/quant_blocks.h"
#include "formats/gguf/quantize.h"

using namespace llama;
using namespace llama::test;

namespace {

std::vector<float> gaussianValues(int64_t n, unsigned seed, float sigma) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = dist(rng);
    return v;
}

Tensor quantizedWeights(DType t, int64_t out, int64_t in, unsigned seed) {
    auto w = gaussianValues(out * in, seed, 0.05f);
    auto bytes = quantize(t, w.data(), out * in);
    // Our quantizer and llama.cpp's use -127..127, but -128 is a valid Q8_0 value a file may
    // hold: put it in every fifth block, where the 8-bit kernels' offsets would overflow first.
    if (t == DType::Q8_0)
        for (size_t b = 0; b < bytes.size() / 34; b += 5) bytes[b * 34 + 2 + b % 32] = 0x80;
    Tensor wq({out, in}, t);
    std::memcpy(wq.mutableData<uint8_t>(), bytes.data(), bytes.size());
    return wq;
}

Tensor decoded(const Tensor& wq) {
    Tensor wf(wq.shape(), DType::F32);
    dequantize(wq.dtype(), wq.data<uint8_t>(), wf.mutableData<float>(), wq.numel());
    return wf;
}

// The bound in the file comment, for output (s, o).
double xRoundingBound(const Tensor& x, const Tensor& wf, int64_t s, int64_t o, int64_t block) {
    const int64_t in = wf.dim(1);
    double bound = 0;
    for (int64_t b = 0; b < in; b += block) {
        double amax = 0, wsum = 0;
        for (int64_t i = b; i < b + block; ++i) {
            amax = std::max(amax, std::abs(double(x.floatAt(s * in + i))));
            wsum += std::abs(double(wf.floatAt(o * in + i)));
        }
        bound += wsum * amax / 254.0;
    }
    return bound * 1.001 + 1e-5;
}

const DType kIntegerTypes[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K};

// (std::bit_cast is missing from Emscripten 3.1.6's libc++, and this file is in the web tests.)
uint32_t bitsOf(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

// x . wq on every kernel path this CPU has gives the generic path's bits.
void requireGenericBitsOnEveryPath(const Tensor& x, const Tensor& wq) {
    Tensor want;
    {
        UsingKernels generic("generic");
        want = ml::LinearTransformation(x, wq);
    }
    for (const std::string& path : ml::kernels::supportedPaths()) {
        UsingKernels use(path);
        Tensor y = ml::LinearTransformation(x, wq);
        for (int64_t i = 0; i < y.numel(); ++i) {
            INFO(path << " vs generic, " << x.dim(0) << " rows, element " << i << ": " << y.floatAt(i) << " vs " << want.floatAt(i));
            REQUIRE(bitsOf(y.floatAt(i)) == bitsOf(want.floatAt(i)));
        }
    }
}

}  // namespace

TEST_CASE("Every kernel path's integer dot products stay within x's rounding of the F32 reference",
          "[ml][linear][quant][kernels]") {
    // 3 super-blocks, 24 blocks of 32; 15 weight rows leave partial chunks and a last panel call of 3
    // rows on the 4-row paths (simd128, avx2), 7 on avx512's 8.
    const int64_t in = 768, out = 15;
    for (DType t : kIntegerTypes)
        for (const std::string& path : ml::kernels::supportedPaths()) {
            DYNAMIC_SECTION(dtypeName(t) << " on " << path) {
                Tensor wq = quantizedWeights(t, out, in, 7), wf = decoded(wq);
                // Up to a path's panel width (4, 8 or 16 lanes) the rows take the dot kernels, 4 rows
                // per weight load (1, 2, 5, 6 rows: partial groups of 4); more take the panels,
                // int16 or (Q8_0 and Q4_0 with VNNI) byte ones (9, 17 and 33 rows leave a partly
                // padded last group on every width).
                for (int64_t rows : {1, 2, 5, 6, 9, 13, 16, 17, 33}) {
                    Tensor x = randomTensor({rows, in}, DType::F32, unsigned(rows));
                    Tensor reference;
                    {
                        UsingKernels ref("reference");
                        reference = ml::LinearTransformation(x, wf);
                    }
                    UsingKernels use(path);
                    Tensor y = ml::LinearTransformation(x, wq);
                    for (int64_t s = 0; s < rows; ++s)
                        for (int64_t o = 0; o < out; ++o) {
                            double got = y.floatAt(s * out + o), want = reference.floatAt(s * out + o);
                            double bound = xRoundingBound(x, wf, s, o, dtypeBlockSize(t));
                            INFO("rows " << rows << " element (" << s << ", " << o << "): got " << got << " want " << want
                                         << " bound " << bound);
                            REQUIRE(std::abs(got - want) <= bound);
                        }
                }
            }
        }
}

TEST_CASE("The kernel paths give the same bits on quantized weights, in decode and prefill", "[ml][linear][quant][kernels]") {
    // Every path against the generic one. Fewer x rows than a path's panel lanes (4 on simd128, 8
    // on generic and avx2, 16 on avx512) take the dot kernels, up to 4 rows a call (1-4 rows: nx =
    // 1..4; 6: 4 + 2); more take the int16 panels, or the byte ones for Q8_0 and Q4_0 with VNNI,
    // or on relaxed SIMD the small-value ones for all but Q8_0.
    // So 9 and 13 rows compare prefill on 8 lanes with decode on 16; 17 and 33 pad a lane group.
    // 39 weight rows are blocks of 16, 16 and 7: panel calls of 7 rows (4 + 3 on 4-row paths).
    // 2, 7 and 13 weight blocks leave the dot kernels' last reduction of blocks partly filled.
    const int64_t out = 39;
    for (DType t : kIntegerTypes)
        for (int64_t blocks : {2, 7, 13}) {
            const int64_t in = blocks * dtypeBlockSize(t);
            DYNAMIC_SECTION(dtypeName(t) << ", k " << in) {
                Tensor wq = quantizedWeights(t, out, in, 11);
                for (int64_t rows : {1, 2, 3, 4, 6, 9, 13, 16, 17, 33}) {
                    requireGenericBitsOnEveryPath(randomTensor({rows, in}, DType::F32, unsigned(rows), -3.0f, 3.0f), wq);
                }
            }
        }
}

TEST_CASE("The kernel paths give the same bits at the integer sums' extremes", "[ml][linear][quant][kernels]") {
    // Every stored byte random (so every value and sub-block scale occurs: Q8_0's -128, Q6_K's
    // scale -128 and values 0 and 63, Q4_K's scales and minimums 63), the f16 scales of a normal
    // size so no sum is infinite; and x rows of +-1 whose every quantized value is +-127, all of
    // one sign in the first rows: each pair of products, and each run of them a kernel adds in
    // int16 lanes, is as large as the weights allow. 1 and 3 rows take the dot kernels, 9 and 17
    // every path's panels.
    struct Layout {
        DType type;
        int bytes;                  // per block
        std::vector<int> halfAt;    // where its f16 scales are
    };
    const Layout layouts[] = {{DType::Q8_0, 34, {0}}, {DType::Q4_0, 18, {0}}, {DType::Q4_K, 144, {0, 2}}, {DType::Q6_K, 210, {208}}};
    const int64_t out = 21, in = 1024;
    for (const Layout& l : layouts)
        DYNAMIC_SECTION(dtypeName(l.type)) {
            std::mt19937 rng(7);
            Tensor wq({out, in}, l.type);
            uint8_t* bytes = wq.mutableData<uint8_t>();
            const int64_t blocks = out * in / dtypeBlockSize(l.type);
            for (int64_t i = 0; i < blocks * l.bytes; ++i) bytes[i] = uint8_t(rng());
            for (int64_t b = 0; b < blocks; ++b)
                for (int at : l.halfAt) {
                    const uint16_t half = uint16_t(0x2c00 + (rng() & 0x3ff));  // [2^-4, 2^-3)
                    std::memcpy(bytes + b * l.bytes + at, &half, 2);
                }
            for (int64_t rows : {1, 3, 9, 17}) {
                Tensor x({rows, in}, DType::F32);
                for (int64_t i = 0; i < x.numel(); ++i)
                    x.mutableData<float>()[i] = i / in < 2 || rng() % 2 ? 1.0f : -1.0f;  // rows 0 and 1 all +1
                requireGenericBitsOnEveryPath(x, wq);
            }
        }
}

TEST_CASE("Every kernel path's BF16 dot product gives the reference path's bits", "[ml][linear][bf16][kernels]") {
    // The reference path widens BF16 weights to F32 and dots them by dot_kernels.h; every path
    // adds the same products in the same canonical order (docs/speed.md), so the results are
    // equal bit for bit. k = 67 and 2051 leave tails after every vector width; 1-5 rows are the
    // decode kernels' territory (one row of BF16 x: both operands widened in registers), 6-37
    // rows of BF16 x the prefill's tiles (3 x 2 on avx2, 6 x 4 on avx512: partial tiles at 13
    // and 37 rows and 9 weight rows; 37 rows are two passes over the weights, 30 and 7 rows).
    for (const std::string& path : ml::kernels::supportedPaths())
        for (int64_t in : {67, 2051})
            for (auto [rows, xType] : {std::pair{int64_t(1), DType::F32}, {1, DType::BF16}, {3, DType::F32}, {5, DType::F32},
                                       {6, DType::BF16}, {9, DType::BF16}, {13, DType::BF16}, {37, DType::BF16}}) {
                Tensor x = randomTensor({rows, in}, xType, unsigned(in + rows));
                Tensor w = randomTensor({9, in}, DType::BF16, unsigned(in));
                Tensor reference;
                {
                    UsingKernels ref("reference");
                    reference = ml::LinearTransformation(x, w);
                }
                UsingKernels use(path);
                Tensor y = ml::LinearTransformation(x, w);
                INFO(path << " k " << in << " rows " << rows << " of " << dtypeName(xType));
                REQUIRE(std::memcmp(y.rawData(), reference.rawData(), y.byteSize()) == 0);
            }
}

TEST_CASE("BF16 prefill: values vdpbf16ps would flush or round otherwise give the reference path's bits on every path",
          "[ml][linear][bf16][kernels]") {
    // avx512bf16 multiplies BF16 tiles with vdpbf16ps, which reads subnormal inputs as zero and
    // flushes subnormal results; it is used only where neither can happen, and rows or weight
    // blocks where one could go through the widened tiles (kernels_avx512bf16.cpp). Each special
    // row sits among ordinary ones, so a call mixes both ways. In row 1, elements 0 and 16 (both
    // partial 0) give 2^-126 - (2^-126 - 2^-133) = 2^-133, which vdpbf16ps would flush to 0.
    constexpr uint16_t kTwoToMinus63 = 0x2000, kMinus127_128ths = 0x9ffe, kSubnormal = 0x0040, kTwoTo120 = 0x7b80,
                       kInfinity = 0x7f80;
    const int64_t in = 67, rows = 9;
    auto specialRow = [&](Tensor& x, int64_t row, std::initializer_list<std::pair<int, uint16_t>> values) {
        uint16_t* p = x.mutableData<uint16_t>() + row * in;
        for (auto [i, v] : values) p[i] = v;
    };
    Tensor x = randomTensor({rows, in}, DType::BF16, 5);
    specialRow(x, 1, {{0, kTwoToMinus63}, {16, kMinus127_128ths}});  // a sum that cancels to a subnormal
    for (int i = 1; i < in; ++i)
        if (i != 16) specialRow(x, 1, {{i, 0}});
    specialRow(x, 3, {{5, kSubnormal}});   // a subnormal x value
    specialRow(x, 4, {{7, kTwoTo120}});    // products near the overflow guard
    specialRow(x, 6, {{9, kInfinity}});    // an infinite x value
    for (bool subnormalWeight : {false, true}) {
        Tensor w = randomTensor({9, in}, DType::BF16, 6);
        for (int64_t o = 0; o < 9; ++o) {
            w.mutableData<uint16_t>()[o * in + 0] = kTwoToMinus63;
            w.mutableData<uint16_t>()[o * in + 16] = kTwoToMinus63;
        }
        if (subnormalWeight) w.mutableData<uint16_t>()[4 * in + 30] = kSubnormal;  // the whole block goes the widened way
        Tensor reference;
        {
            UsingKernels ref("reference");
            reference = ml::LinearTransformation(x, w);
        }
        REQUIRE(reference.data<uint16_t>()[1 * 9 + 0] == 0x0001);  // 2^-133 in BF16
        for (const std::string& path : ml::kernels::supportedPaths()) {
            UsingKernels use(path);
            Tensor y = ml::LinearTransformation(x, w);
            INFO(path << (subnormalWeight ? ", a subnormal weight" : ""));
            REQUIRE(std::memcmp(y.rawData(), reference.rawData(), y.byteSize()) == 0);
        }
    }
}

TEST_CASE("BF16 prefill kernels: every path's F32 sums are the canonical dot's, bit for bit", "[ml][linear][bf16][kernels]") {
    // LinearTransformation rounds a BF16 x's result to BF16, which could hide a last-bit difference
    // in the F32 sum; here each path's KernelSet::bf16Rows (the AVX tiles, widened or vdpbf16ps;
    // relaxed SIMD's 2 x 1 tiles) is checked before that rounding, against the canonical dot
    // written out (dot_kernels.h: 16 partials, element i in partial i % 16, exact products, the
    // halving tree). k = 67, 256 and
    // 2051 leave tails of every width; 1 to 37 x rows and 1 to 13 weight rows leave partial tiles
    // of both AVX-512 tile shapes (6 x 4, and 4 x 6 for a chunk's last 1-4 rows) and a second
    // chunk of x rows; 24 and 30 weight rows a whole block of LinearTransformation's 24 (one call
    // to a tile per block) and more than one.
    auto canonical = [](const uint16_t* x, const uint16_t* w, int64_t k) {
        float p[16] = {};
        for (int64_t i = 0; i < k; ++i) p[i % 16] += BFloat16::toFloat(x[i]) * BFloat16::toFloat(w[i]);
        for (int width = 8; width >= 1; width /= 2)
            for (int j = 0; j < width; ++j) p[j] += p[j + width];
        return p[0];
    };
    int checkedPaths = 0;
    for (const std::string& path : ml::kernels::supportedPaths()) {
        UsingKernels use(path);
        const auto bf16Rows = ml::kernels::active().bf16Rows;
        if (!bf16Rows) continue;  // generic and simd128: F32 tiles, which the model tests cover
        ++checkedPaths;
        for (int64_t k : {67, 256, 2051})
            for (int64_t rows : {1, 2, 4, 6, 10, 13, 37, 40})
                for (int64_t nw : {1, 5, 9, 13, 24, 30}) {
                    const Tensor x = randomTensor({rows, k}, DType::BF16, unsigned(k + rows), -3.0f, 3.0f);
                    const Tensor w = randomTensor({nw, k}, DType::BF16, unsigned(k * nw));
                    std::vector<float> out(size_t(rows * nw));
                    const uint16_t* xs = x.data<uint16_t>();
                    std::vector<uint16_t> prepared;  // the x86 paths take x rows made ready once per call
                    if (const auto& set = ml::kernels::active(); set.prepareRows) {
                        prepared.resize(size_t(rows * set.preparedRowLength(k)));
                        set.prepareRows(xs, rows, k, prepared.data());
                        xs = prepared.data();
                    }
                    bf16Rows(xs, rows, w.data<uint16_t>(), nw, k, out.data(), nw);
                    for (int64_t s = 0; s < rows; ++s)
                        for (int64_t o = 0; o < nw; ++o) {
                            const float want = canonical(x.data<uint16_t>() + s * k, w.data<uint16_t>() + o * k, k);
                            INFO(path << " k " << k << " rows " << rows << " weight rows " << nw << " at " << s << ", " << o);
                            REQUIRE(std::memcmp(&out[size_t(s * nw + o)], &want, 4) == 0);
                        }
                }
    }
#ifdef __x86_64__
    CHECK(checkedPaths == int(ml::kernels::supportedPaths().size()) - 1);  // every path but generic
#elif defined(__wasm_relaxed_simd__)
    CHECK(checkedPaths == 1);  // relaxed-simd's BF16 tiles (the browser's relaxed module)
#endif
}

TEST_CASE("Kernel paths: the CPU's best is chosen and unknown ones are refused", "[ml][kernels]") {
    const auto paths = ml::kernels::supportedPaths();
    REQUIRE(paths.front() == "generic");
    REQUIRE(std::string(ml::kernels::active().name) == (std::getenv("LLAMA_KERNELS") ? std::getenv("LLAMA_KERNELS") : paths.back()));
    REQUIRE_THROWS_WITH(ml::kernels::useKernels("neon"), Catch::Contains("not available on this CPU (available: generic"));
#if defined(__wasm_relaxed_simd__)
    // The browser's relaxed-SIMD module: its path is there beside simd128's, and is the one chosen.
    REQUIRE(paths == std::vector<std::string>{"generic", "simd128", "relaxed-simd"});
#elif defined(__wasm_simd128__)
    // The browser build runs WebAssembly SIMD: its path is there, so the tests above cover it.
    REQUIRE(paths == std::vector<std::string>{"generic", "simd128"});
#endif
}
