#include "batch/speculative_generation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "batch/batch_decode.h"
#include "ml/ops.h"
#include "tokenizer/utf8_stream.h"

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

GenerationResult SpeculativeGenerator::generate(InferenceContext& targetCtx, InferenceContext& draftCtx, const std::vector<int32_t>& prompt,
                                                int maxTokens, const std::function<void(const std::string&)>& onText) const {
    GenerationResult result;
    SpeculativeStats& stats = result.speculative.emplace();
    result.promptTokens = prompt;
    if (prompt.empty()) throw std::invalid_argument("the prompt encodes to no tokens");
    if (int(prompt.size()) >= targetCtx.maxSeqLen)
        throw std::invalid_argument(
            fmt::format("the prompt has {} tokens, but the context length is {}: it must be shorter", prompt.size(), targetCtx.maxSeqLen));
    const auto stopIds = tokenizer_.stopIds();
    Utf8StreamDecoder decoder;
    std::vector<int32_t> sequence = prompt;  // every token so far
    int targetPast = 0, draftPast = 0;       // positions each cache holds
    // Decodes sequence[from, to) into ctx as sequence 0, logits for the last `outputs` tokens.
    auto decode = [](InferenceContext& ctx, const LlamaTransformer& model, const std::vector<int32_t>& tokens, int from, int to, int outputs) {
        LlamaBatch batch;
        for (int i = from; i < to; ++i) batch.add(tokens[size_t(i)], i, {0}, i >= to - outputs);
        return llamaDecode(ctx, model, batch, 512).logits;
    };
    auto emit = [&](int32_t id) {
        const int32_t previous = sequence.back();
        sequence.push_back(id);
        if (std::find(stopIds.begin(), stopIds.end(), id) != stopIds.end()) {
            result.stopReason = "end of turn token";
            return false;
        }
        result.generatedTokens.push_back(id);
        const std::string piece = decoder.feed(tokenizer_.decodeAfter(previous, id));
        result.text += piece;
        if (onText && !piece.empty()) onText(piece);
        if (int(result.generatedTokens.size()) >= maxTokens) {
            result.stopReason = "max tokens";
            return false;
        }
        return true;
    };

    try {
        // The prompt through the target: its last logits give the first token.
        auto t0 = Clock::now();
        const Tensor prefill = decode(targetCtx, target_, sequence, 0, int(sequence.size()), 1);
        targetPast = int(sequence.size());
        result.prefillSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        auto t1 = Clock::now();
        bool going = maxTokens > 0 && emit(argmaxRow(prefill, 0));
        if (maxTokens == 0) result.stopReason = "max tokens";
        while (going) {
            // Room for the last token and the drafts in the target's context.
            const int room = targetCtx.maxSeqLen - int(sequence.size());
            if (room < 1) {
                result.stopReason = "context length";
                break;
            }
            const int k = std::min({draftMax_, room - 1, maxTokens - int(result.generatedTokens.size())});
            // The draft catches up on what it has not seen (the prompt, accepted tokens), then
            // proposes k tokens one at a time, greedily.
            std::vector<int32_t> drafts;
            if (k > 0) {
                Tensor logits = decode(draftCtx, draft_, sequence, draftPast, int(sequence.size()), 1);
                draftPast = int(sequence.size());
                std::vector<int32_t> extended = sequence;
                for (int i = 0; i < k; ++i) {
                    drafts.push_back(argmaxRow(logits, 0));
                    extended.push_back(drafts.back());
                    if (i + 1 < k) {
                        logits = decode(draftCtx, draft_, extended, draftPast, draftPast + 1, 1);
                        ++draftPast;
                    }
                }
            }
            // The target checks the last token and every draft in one pass.
            std::vector<int32_t> checked(sequence.begin() + targetPast, sequence.end());
            checked.insert(checked.end(), drafts.begin(), drafts.end());
            std::vector<int32_t> extended = sequence;
            extended.insert(extended.end(), drafts.begin(), drafts.end());
            const int nChecked = int(checked.size());
            const Tensor verdict = decode(targetCtx, target_, extended, targetPast, targetPast + nChecked, nChecked);
            // Row r of verdict: the target's next token after extended[targetPast + r].
            const int firstDraftRow = nChecked - int(drafts.size()) - 1;
            int accepted = 0;
            while (accepted < int(drafts.size()) && argmaxRow(verdict, firstDraftRow + accepted) == drafts[size_t(accepted)]) ++accepted;
            const int32_t next = argmaxRow(verdict, firstDraftRow + accepted);
            stats.rounds++;
            stats.drafted += int(drafts.size());
            stats.accepted += accepted;
            const std::vector<int32_t> kept(drafts.begin(), drafts.begin() + accepted), rejected(drafts.begin() + accepted, drafts.end());
            targetCtx.stage(marks::Speculation{.drafted = int64_t(drafts.size()), .accepted = accepted,
                                               .keptTokens = [&] { return piecesOf(tokenizer_, kept); },
                                               .rejectedTokens = [&] { return piecesOf(tokenizer_, rejected); }, .next = next,
                                               .nextPiece = [&] { return tokenizer_.pieceForDisplay(next); }});
            // The caches keep the last token and the accepted drafts; the rejected ones go.
            targetPast += nChecked - int(rejected.size());
            targetCtx.Cells.seqRm(0, targetPast, -1);
            draftPast = std::min(draftPast, targetPast);
            draftCtx.Cells.seqRm(0, draftPast, -1);
            for (int32_t id : kept)
                if (!(going = emit(id))) break;
            if (going) going = emit(next);
        }
        result.decodeSeconds = std::chrono::duration<double>(Clock::now() - t1).count();
        // Tokens the decode phase made (the first came from the prefill): the summary's decode tok/s.
        result.decodeSteps = std::max(0, int(result.generatedTokens.size()) - 1);
    } catch (const GenerationStopped&) {
        result.stopReason = "stopped";
    }
    const std::string rest = decoder.flush();
    result.text += rest;
    if (onText && !rest.empty()) onText(rest);
    return result;
}

}  // namespace llama
