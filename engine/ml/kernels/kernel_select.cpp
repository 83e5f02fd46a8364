// Which kernel path runs: the fastest the CPU supports, or the one LLAMA_KERNELS names.
#include <atomic>
#include <cstdlib>
#include <stdexcept>

#include "ml/kernels/kernel_set.h"

#ifdef LLAMA_X86_KERNELS
#include <cpuid.h>
#endif

namespace llama::ml::kernels {

#ifndef LLAMA_X86_KERNELS
// Without the x86 kernel files (another architecture), only the portable path exists.
const KernelSet* avx2Kernels() { return nullptr; }
const KernelSet* avx512Kernels() { return nullptr; }
const KernelSet* avx512bf16Kernels() { return nullptr; }
#endif
#ifndef LLAMA_SIMD128_KERNELS
const KernelSet* simd128Kernels() { return nullptr; }  // only the browser build has it
#endif
#ifndef LLAMA_RELAXED_SIMD_KERNELS
const KernelSet* relaxedSimdKernels() { return nullptr; }  // only the browser's relaxed-SIMD module
#endif

namespace {

#ifdef LLAMA_X86_KERNELS
// The instruction sets each path needs, read from CPUID (the same with GCC and clang, whose
// __builtin_cpu_supports know different feature names), and whether the OS saves the wider
// registers (XCR0: YMM state for AVX2, opmask and ZMM state for AVX-512).
struct CpuFeatures {
    bool avx2 = false, avx512 = false, avx512bf16 = false;
};

CpuFeatures readCpuFeatures() {
    CpuFeatures f;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    const bool fma = c & (1u << 12), osxsave = c & (1u << 27), f16c = c & (1u << 29);
    if (!osxsave) return f;
    unsigned xcrLow, xcrHigh;
    __asm__("xgetbv" : "=a"(xcrLow), "=d"(xcrHigh) : "c"(0));
    const bool ymmSaved = (xcrLow & 0x6) == 0x6, zmmSaved = (xcrLow & 0xe6) == 0xe6;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
    f.avx2 = ymmSaved && fma && f16c && (b & (1u << 5));
    const bool avx512f = b & (1u << 16), avx512bw = b & (1u << 30), avx512vl = b & (1u << 31), vnni = c & (1u << 11);
    f.avx512 = f.avx2 && zmmSaved && avx512f && avx512bw && avx512vl && vnni;
    if (f.avx512 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512bf16 = a & (1u << 5);
    return f;
}
#endif

bool cpuRuns(const std::string& name) {
#ifdef LLAMA_X86_KERNELS
    static const CpuFeatures cpu = readCpuFeatures();
    if (name == "avx2") return cpu.avx2;
    if (name == "avx512") return cpu.avx512;
    if (name == "avx512bf16") return cpu.avx512bf16;
#endif
#ifdef LLAMA_SIMD128_KERNELS
    // The module would not have loaded in an engine without WebAssembly SIMD.
    if (name == "simd128") return true;
#endif
#ifdef LLAMA_RELAXED_SIMD_KERNELS
    // Nor this one in an engine without relaxed SIMD (the page validates it before loading).
    if (name == "relaxed-simd") return true;
#endif
    return name == "generic" || name == "reference";
}

// No kernels: LinearTransformation decodes quantized weights to F32 and dots them in F32.
const KernelSet kReference{"reference", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

const KernelSet* byName(const std::string& name) {
    if (name == "reference") return &kReference;
    if (name == "generic") return genericKernels();
    if (name == "avx2") return avx2Kernels();
    if (name == "avx512") return avx512Kernels();
    if (name == "avx512bf16") return avx512bf16Kernels();
    if (name == "simd128") return simd128Kernels();
    if (name == "relaxed-simd") return relaxedSimdKernels();
    return nullptr;
}

std::string pathList() {
    std::string list;
    for (const std::string& p : supportedPaths()) list += (list.empty() ? "" : ", ") + p;
    return list;
}

const KernelSet* chooseAtStart() {
    if (const char* forced = std::getenv("LLAMA_KERNELS"); forced && *forced) {
        if (!byName(forced) || !cpuRuns(forced))
            throw std::invalid_argument(std::string("LLAMA_KERNELS=") + forced + ": this CPU runs only reference, " + pathList());
        return byName(forced);
    }
    std::vector<std::string> paths = supportedPaths();
    return byName(paths.back());
}

std::atomic<const KernelSet*>& current() {
    static std::atomic<const KernelSet*> set{chooseAtStart()};
    return set;
}

}  // namespace

std::vector<std::string> supportedPaths() {
    std::vector<std::string> paths;
    for (const char* name : {"generic", "simd128", "relaxed-simd", "avx2", "avx512", "avx512bf16"})
        if (byName(name) && cpuRuns(name)) paths.push_back(name);
    return paths;
}

const KernelSet& active() { return *current().load(std::memory_order_relaxed); }

void useKernels(const std::string& name) {
    if (!byName(name) || !cpuRuns(name))
        throw std::invalid_argument("kernel path '" + name + "' is not available on this CPU (available: " + pathList() + ")");
    current().store(byName(name), std::memory_order_relaxed);
}

}  // namespace llama::ml::kernels
