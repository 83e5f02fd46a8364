#include "tensor/heap_policy.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace llama {

void keepTensorBlocksInHeap() {
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace llama
