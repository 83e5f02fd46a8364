#pragma once
// The heap policy the engine runs fastest under, for a program to choose: the library does not
// set it by itself (an embedder's process keeps its own allocator settings).
namespace llama {

// Every step allocates and frees tensors of a few hundred KiB to a few MiB (the logits, the
// scores), and a 1,024-token prefill ones of 64-128 MiB per layer (the scores of all heads).
// glibc serves big blocks with mmap/munmap by default, so each step faulted in fresh pages that
// the kernel zeroed first: 5% of decode time, and ToFloat32 of the scores at 1,024 tokens ran 7x
// slower than from reused memory (measured). This keeps every block in the reusable heap
// (glibc's M_MMAP_MAX 0, a trim threshold of 256 MiB), and faults in the heap's first 16 MiB at
// once, so that a run's first pass, which is timed, does not pay for them: a small model's prompt
// fits (a 126-token prefill of a stories260K-shaped model uses 3 MB, the bundled model's 32-token
// one 6 MB), and without it a first pass on 2 threads took 1.4-1.8x as long as the next
// (docs/speed.md, "Only the rows somebody reads"). Elsewhere it does nothing. llama-walkthrough
// and llama-viewer call it first thing in main.
void keepTensorBlocksInHeap();

}  // namespace llama
