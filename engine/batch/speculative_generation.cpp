#include "batch/speculative_generation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "batch/batch_decode.h"
#include "generate/generation_loop.h"
#include "ml/ops.h"

namespace llama {

namespace {
using Clock = std::chrono::steady_clock;

int32_t argmaxRow(const Tensor& logits, int row) {
    if (!logits.hasData()) return 0;  // a dry run
    return int32_t(ml::Argmax(ml::Reshape(ml::Slice(logits, row, row + 1), {logits.dim(1)})));
}

std::string piecesOf(const Tokenizer& tokenizer, const std::vector<int32_t>& ids) {
    std::string out;
    for (int32_t id : ids) out += fmt::format(" {} \"{}\"", id, tokenizer.pieceForDisplay(id));
    return out.empty() ? " (none)" : out;
}
}  // namespace

LlamaTransformer firstLayers(const LlamaTransformer& target, int layers) {
    if (layers < 1 || layers >= int(target.Layers.size()))
        throw std::invalid_argument(fmt::format("--draft-layers {}: the draft is the first N of the model's {} layers, N from 1 to {}", layers,
                                                target.Layers.size(), target.Layers.size() - 1));
    LlamaTransformer draft = target;
    draft.Layers.erase(draft.Layers.begin() + layers, draft.Layers.end());
    return draft;
}

void requireSameVocabulary(const Tokenizer& target, const Tokenizer& draft, const std::string& draftName) {
    if (target.vocabSize() != draft.vocabSize())
        throw std::invalid_argument(fmt::format("--draft-model {}: its vocabulary has {} tokens, the model's {}: a draft must share the "
                                                "target's vocabulary",
                                                draftName, draft.vocabSize(), target.vocabSize()));
    for (int32_t id = 0; id < target.vocabSize(); ++id)
        if (target.decodeToken(id) != draft.decodeToken(id))
            throw std::invalid_argument(fmt::format("--draft-model {}: token {} is \"{}\" there but \"{}\" in the model: a draft must share "
                                                    "the target's vocabulary",
                                                    draftName, id, draft.pieceForDisplay(id), target.pieceForDisplay(id)));
}

namespace {

// Speculation's round as a pass: the first decodes the prompt through the target (its last logits
// give the first token); each after it drafts, verifies, and yields the accepted drafts and the
// target's token after them.
class SpeculativeRound final : public DecodeStrategy {
public:
    SpeculativeRound(InferenceContext& targetCtx, InferenceContext& draftCtx, const LlamaTransformer& target, const LlamaTransformer& draft,
                     const Tokenizer& tokenizer, int draftMax, int nUbatch, GenerationResult& result)
        : targetCtx_(targetCtx), draftCtx_(draftCtx), target_(target), draft_(draft), tokenizer_(tokenizer), draftMax_(draftMax),
          nUbatch_(nUbatch), result_(result), stats_(result.speculative.emplace()) {}

    std::vector<Produced> pass(std::vector<GeneratedSequence>& sequences) override {
        const GeneratedSequence& seq = sequences[0];
        if (!seq.running()) return {};
        // Every token so far; the last is not yet in either cache.
        std::vector<int32_t> sequence = seq.prompt();
        sequence.insert(sequence.end(), seq.generated().begin(), seq.generated().end());
        const auto t0 = Clock::now();
        if (targetPast_ == 0) {
            const Tensor prefill = decode(targetCtx_, target_, sequence, 0, int(sequence.size()), 1);
            targetPast_ = int(sequence.size());
            result_.prefillSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
            return {{0, {argmaxRow(prefill, 0)}}};
        }
        // The drafts fit in the target's cells after the last token, and in the tokens still wanted.
        const int k = std::min({draftMax_, seq.limits().cells - int(sequence.size()) - 1,
                                seq.limits().maxTokens - int(seq.generated().size())});
        // The draft catches up on what it has not seen (the prompt, accepted tokens), then
        // proposes k tokens one at a time, greedily.
        std::vector<int32_t> drafts;
        if (k > 0) {
            Tensor logits = decode(draftCtx_, draft_, sequence, draftPast_, int(sequence.size()), 1);
            draftPast_ = int(sequence.size());
            std::vector<int32_t> extended = sequence;
            for (int i = 0; i < k; ++i) {
                drafts.push_back(argmaxRow(logits, 0));
                extended.push_back(drafts.back());
                if (i + 1 < k) {
                    logits = decode(draftCtx_, draft_, extended, draftPast_, draftPast_ + 1, 1);
                    ++draftPast_;
                }
            }
        }
        // The target checks the last token and every draft in one pass.
        std::vector<int32_t> extended = sequence;
        extended.insert(extended.end(), drafts.begin(), drafts.end());
        const int nChecked = int(extended.size()) - targetPast_;
        const Tensor verdict = decode(targetCtx_, target_, extended, targetPast_, targetPast_ + nChecked, nChecked);
        // Row r of verdict: the target's next token after extended[targetPast + r].
        const int firstDraftRow = nChecked - int(drafts.size()) - 1;
        int accepted = 0;
        while (accepted < int(drafts.size()) && argmaxRow(verdict, firstDraftRow + accepted) == drafts[size_t(accepted)]) ++accepted;
        const int32_t next = argmaxRow(verdict, firstDraftRow + accepted);
        stats_.rounds++;
        stats_.drafted += int(drafts.size());
        stats_.accepted += accepted;
        std::vector<int32_t> kept(drafts.begin(), drafts.begin() + accepted);
        const std::vector<int32_t> rejected(drafts.begin() + accepted, drafts.end());
        targetCtx_.stage(marks::Speculation{.drafted = int64_t(drafts.size()), .accepted = accepted,
                                            .keptTokens = [&] { return piecesOf(tokenizer_, kept); },
                                            .rejectedTokens = [&] { return piecesOf(tokenizer_, rejected); }, .next = next,
                                            .nextPiece = [&] { return tokenizer_.pieceForDisplay(next); }});
        // The caches keep the last token and the accepted drafts; the rejected ones go.
        targetPast_ += nChecked - int(rejected.size());
        targetCtx_.Cells.seqRm(0, targetPast_, -1);
        draftPast_ = std::min(draftPast_, targetPast_);
        draftCtx_.Cells.seqRm(0, draftPast_, -1);
        result_.decodeSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
        kept.push_back(next);
        return {{0, kept}};
    }

private:
    // Decodes tokens[from, to) into ctx as sequence 0, logits for the last `outputs` tokens.
    Tensor decode(InferenceContext& ctx, const LlamaTransformer& model, const std::vector<int32_t>& tokens, int from, int to, int outputs) const {
        LlamaBatch batch;
        for (int i = from; i < to; ++i) batch.add(tokens[size_t(i)], i, {0}, i >= to - outputs);
        return llamaDecode(ctx, model, batch, nUbatch_).logits;
    }

    InferenceContext& targetCtx_;
    InferenceContext& draftCtx_;
    const LlamaTransformer& target_;
    const LlamaTransformer& draft_;
    const Tokenizer& tokenizer_;
    int draftMax_, nUbatch_;
    GenerationResult& result_;
    SpeculativeStats& stats_;
    int targetPast_ = 0, draftPast_ = 0;  // positions each cache holds
};

}  // namespace

GenerationResult SpeculativeGenerator::generate(InferenceContext& targetCtx, InferenceContext& draftCtx, const std::vector<int32_t>& prompt,
                                                int maxTokens, const std::function<void(const std::string&)>& onText) const {
    GenerationResult result;
    result.promptTokens = prompt;
    std::vector<GeneratedSequence> sequence;
    sequence.emplace_back(tokenizer_, prompt, SequenceLimits{.maxTokens = maxTokens, .cells = targetCtx.maxSeqLen}, onText);
    if (int(prompt.size()) >= targetCtx.maxSeqLen)
        throw std::invalid_argument(
            fmt::format("the prompt has {} tokens, but the context length is {}: it must be shorter", prompt.size(), targetCtx.maxSeqLen));
    SpeculativeRound round(targetCtx, draftCtx, target_, draft_, tokenizer_, draftMax_, nUbatch_, result);
    generationLoop(sequence, round);
    result.generatedTokens = sequence[0].generated();
    result.text = sequence[0].text();
    result.stopReason = sequence[0].stopReason();
    // Tokens the decode phase made (the first came from the prefill): the summary's decode tok/s.
    result.decodeSteps = std::max(0, int(result.generatedTokens.size()) - 1);
    return result;
}

}  // namespace llama
