// Which kernel path runs: the fastest the CPU supports, or the one LLAMA_KERNELS names.
#include <atomic>
#include <cstdlib>
#include <stdexcept>

#include "ml/kernels/kernel_set.h"

namespace llama::ml::kernels {

#ifndef LLAMA_X86_KERNELS
// Without the x86 kernel files (another architecture), only the portable path exists.
const KernelSet* avx2Kernels() { return nullptr; }
const KernelSet* avx512Kernels() { return nullptr; }
const KernelSet* avx512Bf16Kernels() { return nullptr; }
#endif

namespace {

bool cpuRuns(const std::string& name) {
#ifdef LLAMA_X86_KERNELS
    __builtin_cpu_init();
    if (name == "avx2")
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    if (name == "avx512")
        return cpuRuns("avx2") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
    if (name == "avx512bf16") return cpuRuns("avx512") && __builtin_cpu_supports("avx512bf16");
#endif
    return name == "generic" || name == "reference";
}

// No kernels: LinearTransformation decodes quantized weights to F32 and dots them in F32.
const KernelSet kReference{"reference", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

const KernelSet* byName(const std::string& name) {
    if (name == "reference") return &kReference;
    if (name == "generic") return genericKernels();
    if (name == "avx2") return avx2Kernels();
    if (name == "avx512") return avx512Kernels();
    if (name == "avx512bf16") return avx512Bf16Kernels();
    return nullptr;
}

const KernelSet* chooseAtStart() {
    if (const char* forced = std::getenv("LLAMA_KERNELS"); forced && *forced) {
        if (!byName(forced) || !cpuRuns(forced))
            throw std::invalid_argument(std::string("LLAMA_KERNELS=") + forced + ": this CPU runs only reference, generic" +
                                        (cpuRuns("avx2") ? ", avx2" : "") + (cpuRuns("avx512") ? ", avx512" : "") +
                                        (cpuRuns("avx512bf16") ? ", avx512bf16" : ""));
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
    for (const char* name : {"generic", "avx2", "avx512", "avx512bf16"})
        if (byName(name) && cpuRuns(name)) paths.push_back(name);
    return paths;
}

const KernelSet& active() { return *current().load(std::memory_order_relaxed); }

void useKernels(const std::string& name) {
    if (!byName(name) || !cpuRuns(name)) {
        std::string list;
        for (const std::string& p : supportedPaths()) list += (list.empty() ? "" : ", ") + p;
        throw std::invalid_argument("kernel path '" + name + "' is not available on this CPU (available: " + list + ")");
    }
    current().store(byName(name), std::memory_order_relaxed);
}

}  // namespace llama::ml::kernels
