#pragma once
// std::vector whose data starts on a 64-byte cache line, for the buffers SIMD kernels stream
// through (x made ready once per LinearTransformation call): a 32-byte load from a buffer that
// starts 16 bytes into a line, as glibc's large blocks do, straddles two lines every other load.
// Measured on the AVX2 BF16 prefill tile, one core, x rows of 2048: 23.0 GMAC/s 16 bytes into a
// line, 30.8 on a line's start. Aligned by hand over malloc, as Tensor's storage is (tensor.cpp
// says why not aligned operator new).
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace llama::ml {

template <class T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(const CacheLineAllocator<U>&) {}

    // malloc's block, then the first line boundary at least 8 bytes in (malloc's blocks are
    // 16-byte aligned, so there are 16 to 64), with the block's address just before it.
    T* allocate(size_t n) {
        void* raw = std::malloc(n * sizeof(T) + 64);
        if (!raw) throw std::bad_alloc();
        const uintptr_t line = (reinterpret_cast<uintptr_t>(raw) + 64) & ~uintptr_t(63);
        reinterpret_cast<void**>(line)[-1] = raw;
        return reinterpret_cast<T*>(line);
    }
    void deallocate(T* p, size_t) { std::free(reinterpret_cast<void**>(p)[-1]); }

    template <class U>
    bool operator==(const CacheLineAllocator<U>&) const { return true; }
};

template <class T>
using CacheLineVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace llama::ml
