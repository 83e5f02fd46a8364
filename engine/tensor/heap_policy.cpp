#include "tensor/heap_policy.h"

#include <cstdlib>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace llama {

void keepTensorBlocksInHeap() {
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    // The heap's first pages, faulted in now: freed below the trim threshold, they stay mapped
    // for the first pass to reuse.
    constexpr size_t kWarm = size_t(16) << 20;
    if (auto* block = static_cast<volatile char*>(std::malloc(kWarm))) {
        for (size_t i = 0; i < kWarm; i += 4096) block[i] = 0;
        std::free(const_cast<char*>(block));
    }
#endif
}

}  // namespace llama
