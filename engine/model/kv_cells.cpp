#include "model/kv_cells.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "ml/ops.h"

namespace llama {

namespace {
constexpr int32_t kToEnd = std::numeric_limits<int32_t>::max();
void openRange(int32_t& p0, int32_t& p1) {
    if (p0 < 0) p0 = 0;
    if (p1 < 0) p1 = kToEnd;
}
}  // namespace

std::vector<int> KvCell::seqIds() const {
    std::vector<int> ids;
    for (size_t s = 0; s < seqs.size(); ++s)
        if (seqs.test(s)) ids.push_back(int(s));
    return ids;
}

KvCells::KvCells(int size, int nSeqMax) : cells_(size_t(size)), nSeqMax_(nSeqMax) {
    if (nSeqMax < 1 || nSeqMax > kMaxSequences)
        throw std::invalid_argument(fmt::format("KV cells: {} sequences; from 1 to {}", nSeqMax, kMaxSequences));
}

void KvCells::requireSeq(int seq) const {
    if (seq < 0 || seq >= nSeqMax_) throw std::invalid_argument(fmt::format("KV cells: sequence id {} is outside [0, {})", seq, nSeqMax_));
}

std::optional<Cell> KvCells::findSlot(const UBatch& ubatch) {
    const int n = ubatch.nTokens;
    for (int i = 0; i < n; ++i)
        for (int seq : ubatch.seqIds(i)) requireSeq(seq);
    if (n > size()) return std::nullopt;
    // As llama.cpp: start over from 0 when head_ has run far past the cells in use.
    if (head_ > used_ + 2 * n) head_ = 0;
    int tested = 0;
    while (true) {
        if (head_ + n > size()) {
            tested += size() - head_;
            head_ = 0;
            continue;
        }
        bool found = true;
        for (int i = 0; i < n; ++i)
            if (cells_[size_t(head_ + i)].pos >= 0) {
                found = false;
                head_ += i + 1;
                tested += i + 1;
                break;
            }
        if (found) break;
        if (tested >= size()) return std::nullopt;
    }
    for (int i = 0; i < n; ++i) {
        KvCell& cell = cells_[size_t(head_ + i)];
        cell.pos = ubatch.pos(i);
        for (int seq : ubatch.seqIds(i)) cell.seqs.set(size_t(seq));
    }
    used_ += n;
    const int slot = head_;
    head_ = slot + n >= size() ? 0 : slot + n;
    return Cell(slot);
}

int KvCells::nKV() const {
    for (int i = size(); i > 0; --i)
        if (!cells_[size_t(i - 1)].empty()) return i;
    return 0;
}

void KvCells::seqRm(int seq, int32_t p0, int32_t p1) {
    if (seq >= 0) requireSeq(seq);
    openRange(p0, p1);
    int newHead = size();
    for (int i = 0; i < size(); ++i) {
        KvCell& cell = cells_[size_t(i)];
        if (cell.pos < p0 || cell.pos >= p1) continue;
        if (seq < 0)
            cell.seqs.reset();
        else if (!cell.hasSeq(seq))
            continue;
        else
            cell.seqs.reset(size_t(seq));
        if (cell.empty()) {
            if (cell.pos >= 0) --used_;
            cell.pos = -1;
            cell.delta = 0;
            if (newHead == size()) newHead = i;
        }
    }
    // A freed cell before head_: the next search starts there.
    if (newHead != size() && newHead < head_) head_ = newHead;
}

void KvCells::seqCp(int src, int dst, int32_t p0, int32_t p1) {
    requireSeq(src);
    requireSeq(dst);
    openRange(p0, p1);
    head_ = 0;
    for (KvCell& cell : cells_)
        if (cell.hasSeq(src) && cell.pos >= p0 && cell.pos < p1) cell.seqs.set(size_t(dst));
}

void KvCells::seqKeep(int seq) {
    requireSeq(seq);
    int newHead = size();
    for (int i = 0; i < size(); ++i) {
        KvCell& cell = cells_[size_t(i)];
        if (!cell.hasSeq(seq)) {
            if (cell.pos >= 0) --used_;
            cell = KvCell{};
            if (newHead == size()) newHead = i;
        } else {
            cell.seqs.reset();
            cell.seqs.set(size_t(seq));
        }
    }
    if (newHead != size() && newHead < head_) head_ = newHead;
}

void KvCells::seqAdd(int seq, int32_t p0, int32_t p1, int32_t delta) {
    requireSeq(seq);
    openRange(p0, p1);
    if (p0 == p1) return;
    int newHead = size();
    for (int i = 0; i < size(); ++i) {
        KvCell& cell = cells_[size_t(i)];
        if (!cell.hasSeq(seq) || cell.pos < p0 || cell.pos >= p1) continue;
        hasShift_ = true;
        cell.pos += delta;
        cell.delta += delta;
        if (cell.pos < 0) {
            if (!cell.empty()) --used_;
            cell = KvCell{};
            if (newHead == size()) newHead = i;
        }
    }
    head_ = newHead != size() ? newHead : 0;
}

int32_t KvCells::seqPosMax(int seq) const {
    requireSeq(seq);
    int32_t result = -1;
    for (const KvCell& cell : cells_)
        if (cell.hasSeq(seq) && cell.pos > result) result = cell.pos;
    return result;
}

void KvCells::clearShift() {
    for (KvCell& cell : cells_) cell.delta = 0;
    hasShift_ = false;
}

Tensor KvCells::mask(const UBatch& ubatch, int nKV, DType dtype) const {
    Tensor result({ubatch.nTokens, nKV}, DType::F32);
    float* m = result.mutableData<float>();
    for (int i = 0; i < ubatch.nTokens; ++i)
        for (int j = 0; j < nKV; ++j) {
            const KvCell& cell = cells_[size_t(j)];
            bool sees = false;
            if (cell.pos >= 0 && cell.pos <= ubatch.pos(i))
                for (int seq : ubatch.seqIds(i)) sees = sees || cell.hasSeq(seq);
            m[int64_t(i) * nKV + j] = sees ? 0.0f : -std::numeric_limits<float>::infinity();
        }
    return dtype == DType::BF16 ? ml::ToBFloat16(result) : result;
}

std::string KvCells::describe(int i) const {
    const KvCell& cell = cells_[size_t(i)];
    if (cell.pos < 0) return fmt::format("{}: free", i);
    return fmt::format("{}: pos {} seq {{{}}}{}", i, cell.pos, fmt::join(cell.seqIds(), ","),
                       cell.delta ? fmt::format(" delta {}", cell.delta) : "");
}

std::string KvCells::map(int n, int indent) const {
    const int shown = std::min(n, kMapCells);
    std::string cellRow, seqRow = std::string(size_t(indent), ' ') + "seq ", posRow = std::string(size_t(indent), ' ') + "pos ";
    for (int i = 0; i < shown; ++i) {
        const KvCell& cell = cells_[size_t(i)];
        const std::string seq = cell.pos < 0 ? "." : cell.seqs.count() > 1 ? "*" : std::to_string(cell.seqIds().front());
        const std::string pos = cell.pos < 0 ? "." : std::to_string(cell.pos);
        const size_t width = std::max({std::to_string(i).size(), seq.size(), pos.size()}) + 1;
        cellRow += fmt::format("{:>{}}", i, width);
        seqRow += fmt::format("{:>{}}", seq, width);
        posRow += fmt::format("{:>{}}", pos, width);
    }
    const std::string more = n > shown ? fmt::format("  (+{} cells)", n - shown) : "";
    return cellRow + more + "\n" + seqRow + "\n" + posRow;
}

Tensor KvCells::positions(int n) const {
    std::vector<int32_t> pos;
    for (int i = 0; i < n; ++i) pos.push_back(cells_[size_t(i)].pos);
    return Tensor::fromInt32(pos);
}

Tensor KvCells::sequences(int n) const {
    std::vector<std::vector<int>> seqs;
    for (int i = 0; i < n; ++i) seqs.push_back(cells_[size_t(i)].seqIds());
    return seqIdRows(seqs);
}

Tensor seqIdRows(const std::vector<std::vector<int>>& lists) {
    size_t width = 1;
    for (const auto& l : lists) width = std::max(width, l.size());
    std::vector<int32_t> flat(lists.size() * width, -1);
    for (size_t r = 0; r < lists.size(); ++r) std::copy(lists[r].begin(), lists[r].end(), flat.begin() + long(r * width));
    return ml::Reshape(Tensor::fromInt32(flat), {int64_t(lists.size()), int64_t(width)});
}

}  // namespace llama
