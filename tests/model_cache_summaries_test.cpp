// The KV cache's summaries are carried on as the cache grows (model/cache_summaries.h): every
// summary a trace takes of the cache must equal reading the cache whole, after decode steps, a
// pass that rewrites earlier rows, and in either compute dtype. A run touches only the cache rows
// it reaches; the rest are counted as the zeros they stand for, and zeroed for an observer that
// reads the whole cache.
#include <catch2/catch.hpp>

#include <cstring>

#include "session/model_source.h"
#include "ml/ops.h"
#include "model/cache_summaries.h"
#include "model/llama_transformer.h"

using namespace llama;

namespace {

// Compares each cache stage's summary (through the event, as the recorder asks) with one read
// of the tensor whole. Reading the same elements in another order (repeated, transposed) may
// change the last bit of the mean's double sum, nothing else.
struct CacheStageChecker : StageObserver {
    int checked = 0;
    StageReads reads(StageId, int) const override { return StageReads::Statistics; }
    void onStage(const StageEvent& e) override {
        if (e.stage != StageId::CacheRead && e.stage != StageId::RepeatKV && e.stage != StageId::Transposes) return;
        for (size_t i = 0; i < e.tensors.size(); ++i) {
            const TensorStats& kept = e.stats(i);
            const TensorStats whole = computeStats(*e.tensors[i].tensor);
            INFO(e.info().key << " " << e.tensors[i].name << " layer " << e.layer << " startPos " << e.startPos);
            CHECK(kept.min == whole.min);
            CHECK(kept.max == whole.max);
            CHECK(kept.negInf == whole.negInf);
            CHECK(kept.first == whole.first);
            if (e.stage == StageId::CacheRead) CHECK(kept.mean == whole.mean);
            else CHECK(kept.mean == Approx(whole.mean).epsilon(1e-6).margin(1e-9));
            ++checked;
        }
    }
};

}  // namespace

TEST_CASE("KV cache summaries: kept as the cache grows, equal to reading it whole", "[cache-summaries]") {
    static const Model model = loadModel(ASSETS_DIR "/model");
    const std::vector<int32_t> prompt = model.tokenizer->encode("In the beginning God created the heaven");
    for (DType dtype : {DType::BF16, DType::F32}) {
        DYNAMIC_SECTION("compute dtype " << dtypeName(dtype)) {
            LlamaTransformer transformer(model, WhatIf{.computeDType = dtype});
            InferenceContext ctx(model.args);
            CacheStageChecker checker;
            ctx.addObserver(&checker);
            const int n = int(prompt.size());
            transformer.Forward(ctx, Tensor::fromInt32(prompt), 0);
            for (int pos = n; pos < n + 3; ++pos) transformer.Forward(ctx, Tensor::fromInt32({prompt[pos % n]}), pos);
            // A pass that rewrites rows already summarised (as a new prompt, or a rewind, does),
            // with other tokens so that the rows' values change.
            transformer.Forward(ctx, Tensor::fromInt32({prompt[3], prompt[1]}), 2);
            transformer.Forward(ctx, Tensor::fromInt32({prompt[0]}), 4);
            // 6 passes; per layer keys and values at cache_read and repeat_kv, xq, keys and values at transposes
            CHECK(checker.checked == 6 * model.args.n_layers * 7);
        }
    }
}

TEST_CASE("KV cache summaries: only views of a layer's first rows, whole, are known", "[cache-summaries]") {
    std::vector<Tensor> cacheK{ml::Full({8, 2, 4}, DType::F32, 1.0f)}, cacheV{ml::Full({8, 2, 4}, DType::F32, 2.0f)};
    cacheK[0].mutableData<float>()[5] = -3.0f;
    const std::vector<int64_t> written{8};  // every row
    CacheSummaries summaries(cacheK, cacheV, written);
    const Tensor rows = ml::Slice(cacheK[0], 0, 3);
    const auto first = summaries.find(rows);
    REQUIRE(first);
    CHECK(first->min == -3.0f);
    CHECK(first->mean == computeStats(rows).mean);
    // The same elements transposed; the values' buffer; more rows than before.
    CHECK(summaries.find(ml::Transpose(rows, 0, 1))->min == -3.0f);
    CHECK(summaries.find(ml::Slice(cacheV[0], 0, 3))->min == 2.0f);
    CHECK(summaries.find(ml::Slice(cacheK[0], 0, 5))->mean == computeStats(ml::Slice(cacheK[0], 0, 5)).mean);
    // Not the first rows, one head of each row, another tensor: unknown.
    CHECK_FALSE(summaries.find(ml::Slice(cacheK[0], 1, 3)));
    const Tensor firstHead = Tensor::strided({3, 1, 4}, {8, 4, 1}, rows);
    CHECK_FALSE(summaries.find(firstHead));
    CHECK_FALSE(summaries.find(ml::Full({3, 2, 4}, DType::F32, 1.0f)));
    // Fewer rows than summarised are read afresh; rows a pass is about to rewrite are forgotten.
    CHECK_FALSE(summaries.find(ml::Slice(cacheK[0], 0, 2)));
    summaries.forgetFrom(0, Cell(1));
    cacheK[0].mutableData<float>()[5] = 1.0f;
    CHECK(summaries.find(ml::Slice(cacheK[0], 0, 2))->min == 1.0f);
}

namespace {
// cache_write's whole cache, summarised from its summary only (as the trace recorder asks), against
// one read of a copy whose rows no pass reached are zeros.
struct WholeCacheChecker : StageObserver {
    const InferenceContext* ctx = nullptr;
    int checked = 0;
    StageReads reads(StageId, int) const override { return StageReads::Statistics; }
    bool readsWholeCaches() const override { return false; }
    void onStage(const StageEvent& e) override {
        if (e.stage != StageId::CacheWrite) return;
        const Tensor* cache = e.tensorField("cacheK");  // the message's field: the layer's whole cache
        REQUIRE(cache);
        REQUIRE(e.known);
        const int64_t written = ctx->cacheRows().at(size_t(e.layer)), rowBytes = int64_t(dtypeBytes(cache->dtype(), cache->dim(1) * cache->dim(2)));
        CHECK(written < cache->dim(0));
        Tensor padded(cache->shape(), cache->dtype());
        std::memcpy(padded.mutableData<char>(), cache->data<char>(), size_t(written * rowBytes));
        const std::optional<TensorStats> kept = e.known->find(*cache);
        REQUIRE(kept);
        const TensorStats whole = computeStats(padded);
        INFO("layer " << e.layer << " startPos " << e.startPos << " rows written " << written);
        CHECK(kept->min == whole.min);
        CHECK(kept->max == whole.max);
        CHECK(kept->mean == whole.mean);
        CHECK(kept->first == whole.first);
        ++checked;
    }
};
// Reads the whole cache (as a viewer's capture copies it): the observer that says nothing.
struct WholeCacheReader : StageObserver {
    StageReads reads(StageId, int) const override { return StageReads::Statistics; }
    void onStage(const StageEvent&) override {}
};
}  // namespace

TEST_CASE("KV cache: a run touches the rows it reaches, the rest summarised as zeros", "[cache-summaries]") {
    static const Model model = loadModel(ASSETS_DIR "/model");
    const std::vector<int32_t> prompt = model.tokenizer->encode("In the beginning God created the heaven");
    const int n = int(prompt.size());
    for (DType dtype : {DType::BF16, DType::F32}) {
        DYNAMIC_SECTION("compute dtype " << dtypeName(dtype)) {
            LlamaTransformer transformer(model, WhatIf{.computeDType = dtype});
            InferenceContext ctx(model.args, false, dtype);
            WholeCacheChecker checker;
            checker.ctx = &ctx;
            ctx.addObserver(&checker);
            const Tensor prefill = transformer.Forward(ctx, Tensor::fromInt32(prompt), 0);
            for (int pos = n; pos < n + 3; ++pos) transformer.Forward(ctx, Tensor::fromInt32({prompt[pos % n]}), pos);
            CHECK(checker.checked == 4 * model.args.n_layers);
            for (int64_t rows : ctx.cacheRows()) CHECK(rows == n + 3);
            // An observer reading the whole cache: zeroed to its end first, and the logits the same.
            WholeCacheReader reader;
            InferenceContext whole(model.args, false, dtype);
            whole.addObserver(&reader);
            const Tensor prefillWhole = transformer.Forward(whole, Tensor::fromInt32(prompt), 0);
            for (int64_t rows : whole.cacheRows()) CHECK(rows == model.args.max_seq_len);
            REQUIRE(prefill.byteSize() == prefillWhole.byteSize());
            CHECK(std::memcmp(prefill.rawData(), prefillWhole.rawData(), prefill.byteSize()) == 0);
        }
    }
}
