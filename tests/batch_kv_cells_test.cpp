// The KV cells' bookkeeping (model/kv_cells.h) against llama.cpp's rules: the slot search from
// head with holes, seq_rm of the middle sequence, seq_cp sharing cells, seq_keep, seq_add moving
// (and freeing) positions, and the mask a batch of two sequences gets: block-diagonal, causal;
// llama_decode's retry with smaller ubatches when the free cells are scattered.
#include <catch2/catch.hpp>

#include <cmath>

#include "batch/batch_decode.h"
#include "model/kv_cells.h"
#include "model/llama_batch.h"
#include "model/synthetic.h"

using namespace llama;

namespace {
// A batch of `n` tokens of sequence `seq` at positions [from, from + n).
LlamaBatch run(int seq, int from, int n) {
    LlamaBatch b;
    for (int i = 0; i < n; ++i) b.add(100 + i, from + i, {seq}, i + 1 == n);
    return b;
}
UBatch whole(const LlamaBatch& b) { return {&b, 0, b.size()}; }
}  // namespace

TEST_CASE("batch: find_slot takes consecutive free cells from head and fills the hole seq_rm leaves", "[batch][cells]") {
    KvCells cells(12);
    const auto a = run(0, 0, 4), b = run(1, 0, 4), c = run(2, 0, 4);
    CHECK(cells.findSlot(whole(a)) == Cell(0));
    CHECK(cells.head() == 4);  // past the cells it wrote, as llama_decode moves it
    CHECK(cells.findSlot(whole(b)) == Cell(4));
    CHECK(cells.findSlot(whole(c)) == Cell(8));
    CHECK(cells.head() == 0);  // at the end: back to the start
    CHECK(cells.used() == 12);
    CHECK(cells.nKV() == 12);
    CHECK_FALSE(cells.findSlot(whole(run(3, 0, 1))).has_value());  // full

    // seq_rm of the middle sequence frees cells 4..7.
    cells.seqRm(1, -1, -1);
    CHECK(cells.used() == 8);
    for (int i = 4; i < 8; ++i) CHECK(cells.cell(i).pos == -1);
    CHECK(cells.nKV() == 12);  // the last cells are still in use: attention still reads 12
    // Five tokens do not fit the 4-cell hole; four do, exactly there.
    CHECK_FALSE(cells.findSlot(whole(run(3, 0, 5))).has_value());
    CHECK(cells.findSlot(whole(run(3, 0, 4))) == Cell(4));
    CHECK(cells.describe(4) == "4: pos 0 seq {3}");
    CHECK(cells.head() == 8);

    // A freed cell before head moves head back to it; a hole too small is skipped: free 2 cells
    // in the middle of sequence 0 and ask for 3.
    cells.seqRm(2, -1, -1);  // frees 8..11
    cells.seqRm(0, 1, 3);    // frees cells 1, 2
    CHECK(cells.head() == 1);
    CHECK(cells.findSlot(whole(run(4, 0, 3))) == Cell(8));
    CHECK(cells.findSlot(whole(run(5, 0, 2))) == Cell(1));
}

TEST_CASE("batch: seq_cp shares cells, seq_keep and seq_add as llama.cpp's", "[batch][cells]") {
    KvCells cells(8);
    const auto prefix = run(0, 0, 3);
    REQUIRE(cells.findSlot(whole(prefix)) == Cell(0));
    cells.seqCp(0, 1, -1, -1);
    cells.seqCp(0, 2, 0, 2);  // positions 0 and 1 only
    CHECK(cells.cell(0).seqIds() == std::vector<int>{0, 1, 2});
    CHECK(cells.cell(2).seqIds() == std::vector<int>{0, 1});
    CHECK(cells.used() == 3);  // stored once
    CHECK(cells.seqPosMax(2) == 1);

    // Removing a sequence from shared cells frees none of them.
    cells.seqRm(0, -1, -1);
    CHECK(cells.used() == 3);
    CHECK(cells.cell(2).seqIds() == std::vector<int>{1});
    // seq_keep(2): cells without 2 are freed, the rest belong to 2 alone.
    cells.seqKeep(2);
    CHECK(cells.used() == 2);
    CHECK(cells.cell(0).seqIds() == std::vector<int>{2});
    CHECK(cells.cell(2).pos == -1);

    // seq_add moves positions and records the shift; a position below 0 frees its cell.
    cells.seqAdd(2, 1, -1, 4);
    CHECK(cells.hasShift());
    CHECK(cells.cell(1).pos == 5);
    CHECK(cells.cell(1).delta == 4);
    CHECK(cells.cell(0).pos == 0);
    cells.seqAdd(2, 0, 1, -1);
    CHECK(cells.cell(0).pos == -1);
    CHECK(cells.used() == 1);
    cells.clearShift();
    CHECK(cells.cell(1).delta == 0);
    CHECK_FALSE(cells.hasShift());
}

TEST_CASE("batch: two sequences in one ubatch get the block-diagonal causal mask from the cells", "[batch][cells][mask]") {
    KvCells cells(8);
    LlamaBatch batch;
    for (int i = 0; i < 3; ++i) batch.add(10 + i, i, {0}, i == 2);
    for (int i = 0; i < 2; ++i) batch.add(20 + i, i, {1}, i == 1);
    const UBatch u = whole(batch);
    CHECK(u.nSeqs() == 2);
    CHECK(batch.nOutputs() == 2);
    REQUIRE(cells.findSlot(u) == Cell(0));
    const Tensor mask = cells.mask(u, cells.nKV(), DType::F32);
    REQUIRE(mask.shape() == Shape{5, 5});
    const int expected[5][5] = {{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 1, 1}};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            INFO("token " << i << " cell " << j);
            CHECK((mask.data<float>()[i * 5 + j] == 0.0f) == bool(expected[i][j]));
            if (!expected[i][j]) CHECK(std::isinf(mask.data<float>()[i * 5 + j]));
        }
    // A token of both sequences (a shared prompt decoded once) sees the cells of either.
    LlamaBatch both;
    both.add(30, 3, {0, 1}, true);
    REQUIRE(cells.findSlot(whole(both)) == Cell(5));
    const Tensor m2 = cells.mask(whole(both), cells.nKV(), DType::F32);
    for (int j = 0; j < 6; ++j) CHECK(m2.data<float>()[j] == 0.0f);
}

TEST_CASE("batch: a batch is split into ubatches of at most n_ubatch tokens, in order", "[batch]") {
    const LlamaBatch b = run(0, 0, 10);
    const auto parts = splitIntoUBatches(b, 4);
    REQUIRE(parts.size() == 3);
    CHECK(parts[0].nTokens == 4);
    CHECK(parts[2].begin == 8);
    CHECK(parts[2].nTokens == 2);
    CHECK(parts[2].pos(1) == 9);
    CHECK(parts[2].logits(1));
    CHECK_THROWS_WITH(splitIntoUBatches(b, 0), "n_ubatch must be at least 1");
}

TEST_CASE("batch: llama_decode splits a ubatch that finds no consecutive free cells, and says when the cache is full", "[batch][cells]") {
    static const Model model = makeSyntheticModel("tiny", 5, false);
    const LlamaTransformer transformer(model);
    ModelArgs args = model.args;
    args.max_seq_len = 8;
    InferenceContext ctx(args);
    // Cells 0-7 filled by two sequences alternating, then sequence 1 removed: every other cell free.
    LlamaBatch fill;
    for (int i = 0; i < 8; ++i) fill.add(65 + i, i / 2, {i % 2}, false);
    llamaDecode(ctx, transformer, fill, 512);
    ctx.Cells.seqRm(1, -1, -1);
    REQUIRE(ctx.Cells.used() == 4);
    // Four tokens of sequence 2 fit only one cell at a time: split down to single tokens.
    LlamaBatch four;
    for (int i = 0; i < 4; ++i) four.add(70 + i, i, {2}, i == 3);
    const DecodeOutputs out = llamaDecode(ctx, transformer, four, 512);
    CHECK(ctx.Cells.used() == 8);
    CHECK(out.logits.dim(0) == 1);
    CHECK(out.outputOfToken[3] == 0);
    for (int c = 1; c < 8; c += 2) CHECK(ctx.Cells.cell(c).hasSeq(2));
    LlamaBatch more;
    more.add(80, 4, {2}, true);
    CHECK_THROWS_WITH(llamaDecode(ctx, transformer, more, 512), Catch::Contains("the KV cache is full (8 of 8 cells used)"));
}

TEST_CASE("batch: sequence ids reach n_seq_max exactly, in the cells and in what observers are given", "[batch][cells]") {
    KvCells cells(8, 40);
    LlamaBatch b;
    b.add(100, 0, {0, 33, 39}, true);  // ids past 32: a 32-bit mask would have dropped them
    REQUIRE(cells.findSlot(whole(b)) == Cell(0));
    CHECK(cells.cell(0).seqIds() == std::vector<int>{0, 33, 39});
    const Tensor seqs = cells.sequences(1);
    CHECK(std::vector<int32_t>(seqs.data<int32_t>(), seqs.data<int32_t>() + seqs.numel()) == std::vector<int32_t>{0, 33, 39});
    cells.seqCp(39, 38, -1, -1);
    CHECK(cells.cell(0).hasSeq(38));
    CHECK(cells.describe(0) == "0: pos 0 seq {0,33,38,39}");

    // An id at or past n_seq_max is refused before anything changes, naming it and the bound.
    LlamaBatch out;
    out.add(101, 1, {40}, true);
    CHECK_THROWS_WITH(cells.findSlot(whole(out)), "KV cells: sequence id 40 is outside [0, 40)");
    CHECK(cells.used() == 1);
    CHECK_THROWS_WITH(cells.seqRm(40, -1, -1), Catch::Contains("sequence id 40"));
    CHECK_THROWS_WITH(cells.seqCp(0, 41, -1, -1), Catch::Contains("sequence id 41"));
    CHECK_THROWS_WITH(KvCells(8, kMaxSequences + 1), Catch::Contains("from 1 to 257"));
}
