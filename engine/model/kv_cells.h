#pragma once
// The KV cache's bookkeeping as llama.cpp keeps it: one cell per row of CacheK/CacheV, each with
// the position its key was rotated for, a pending shift (`delta`) and the set of sequences that
// may see it. A ubatch is written into `n_tokens` consecutive free cells found from `head`
// (findSlot); a token attends to the cells that share one of its sequences and hold a position
// not after its own (mask). The cells, head, the used count and the pending shift change only
// through these operations (llama.cpp's llama_kv_cells keeps them so): observers and the batch
// code read them through const accessors. The sequence operations are llama.cpp's llama_kv_cache_seq_*:
// positions p0..p1 are half-open, and a negative p0/p1 means "from the start"/"to the end".
// Only bookkeeping lives here: the keys and values themselves stay in InferenceContext's caches.
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/llama_batch.h"
#include "model/position_and_cell.h"
#include "tensor/tensor.h"

namespace llama {

// Sequence ids run from 0 to kMaxSequences - 1: `batch --parallel`'s 256 and sequence 0, the
// shared prefix. As llama.cpp's llama_kv_cells (LLAMA_MAX_SEQ), a cell keeps its sequences as a
// bitset of that size: a test and a set in constant time, no allocation.
constexpr int kMaxSequences = 257;

struct KvCell {
    int32_t pos = -1;   // -1: free
    int32_t delta = 0;  // how far seqAdd moved pos since the key was last rotated
    std::bitset<kMaxSequences> seqs;  // bit s: sequence s may see this cell

    bool empty() const { return seqs.none(); }
    bool hasSeq(int seq) const { return seqs.test(size_t(seq)); }
    std::vector<int> seqIds() const;  // the sequences, in increasing order
};

class KvCells {
public:
    // nSeqMax: the sequence ids this run uses, [0, nSeqMax) (llama.cpp's n_seq_max), at most kMaxSequences.
    explicit KvCells(int size, int nSeqMax = kMaxSequences);
    int nSeqMax() const { return nSeqMax_; }

    int size() const { return int(cells_.size()); }
    const KvCell& cell(int i) const { return cells_[size_t(i)]; }
    int head() const { return head_; }          // where the next slot search starts
    int used() const { return used_; }          // cells holding a position
    bool hasShift() const { return hasShift_; }  // some cell has a delta: the next pass re-rotates the cached keys

    // Finds nTokens consecutive free cells from head (wrapping to 0 once), writes the ubatch's
    // positions and sequences into them, moves head past them (as llama.cpp after a decode) and
    // returns the first; nothing when the cache is full.
    std::optional<Cell> findSlot(const UBatch& ubatch);
    // One past the last used cell (llama.cpp's cell_max): how many cells attention reads, n_kv.
    int nKV() const;

    // A sequence id outside [0, nSeqMax) is refused by every operation (std::invalid_argument).
    // Removes `seq` from the cells at positions [p0, p1) (seq < 0: every sequence); a cell left
    // with no sequence is freed. (llama.cpp's returns false only for recurrent models' caches.)
    void seqRm(int seq, int32_t p0, int32_t p1);
    // Cells of `src` at [p0, p1) also belong to `dst`: a shared prefix stored once.
    void seqCp(int src, int dst, int32_t p0, int32_t p1);
    // Frees every cell `seq` does not have; the rest belong to `seq` alone.
    void seqKeep(int seq);
    // Moves positions [p0, p1) of `seq` by delta; a position pushed below 0 frees its cell.
    void seqAdd(int seq, int32_t p0, int32_t p1, int32_t delta);
    // The largest position `seq` holds, -1 when none.
    int32_t seqPosMax(int seq) const;
    // After the keys have been re-rotated: every delta back to 0.
    void clearShift();

    // [nTokens, nKV] in dtype: 0 where token i may see cell j, -inf elsewhere.
    Tensor mask(const UBatch& ubatch, int nKV, DType dtype) const;
    // One line a cell, for the stepper and tests: "3: pos 2 seq {0,1}" or "3: free".
    std::string describe(int cell) const;
    // Cells [0, n) as three aligned rows, a column each, for the log; the first row's label
    // ("cell") is the caller's wording's, so no log line is a bare field:
    //   cell  0  1  2  3  4
    //   seq   *  1  1  .  2      (. free, * shared by several sequences)
    //   pos   0  1  2  .  1
    // `indent` spaces go before "seq" and "pos" (under a label written before "cell"). At most
    // kMapCells columns; the rest are counted.
    std::string map(int n, int indent = 0) const;
    static constexpr int kMapCells = 48;

    // Cells [0, n) for observers (a trace, the viewer): each cell's position (-1: free) as I32 [n],
    // and its sequences as I32 [n, widest set] padded with -1 (seqIdRows).
    Tensor positions(int n) const;
    Tensor sequences(int n) const;

private:
    void requireSeq(int seq) const;
    std::vector<KvCell> cells_;
    int nSeqMax_;
    int head_ = 0, used_ = 0;
    bool hasShift_ = false;
};

// Lists of sequence ids as an I32 [lists, longest list] tensor, each row padded with -1 (at least
// one column): how the marks hand a token's or a cell's sequences to observers.
Tensor seqIdRows(const std::vector<std::vector<int>>& lists);

}  // namespace llama
