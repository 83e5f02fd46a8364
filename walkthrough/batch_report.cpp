#include "batch_report.h"

#include <fmt/format.h>


namespace llama::cli {

std::string batchReport(const std::vector<std::string>& prompts, const GenerationSettings& g, int parallel, const ParallelResult& r,
                        int contextLength) {
    std::string out;
    for (size_t i = 0; i < r.sequences.size(); ++i) {
        const SequenceResult& s = r.sequences[i];
        out += fmt::format("\n[{}] {}{}\n", i + 1, g.mode == PromptMode::Completion ? g.system + prompts[i] : prompts[i], s.text);
    }
    out += fmt::format("\n{:>4}  {:>13}  {:>9}  {:>8}  {:>7}  {}\n", "seq", "prompt tokens", "generated", "tok/s", "shifts", "stopped by");
    int64_t generated = 0;
    for (size_t i = 0; i < r.sequences.size(); ++i) {
        const SequenceResult& s = r.sequences[i];
        const double secs = s.finishedAt - s.joinedAt;
        generated += int64_t(s.generatedTokens.size());
        out += fmt::format("{:>4}  {:>13}  {:>9}  {:>8.1f}  {:>7}  {}\n", i + 1, s.promptTokens.size(), s.generatedTokens.size(),
              secs > 0 ? double(s.generatedTokens.size()) / secs : 0.0, s.contextShifts, describe(s.stopReason));
    }
    out += fmt::format("\nBatch: {} prompts, --parallel {} | shared prefix: {} token{}, stored once | {} positions per sequence | {} llama_decode calls\n",
          r.sequences.size(), parallel, r.sharedPrefixTokens, r.sharedPrefixTokens == 1 ? "" : "s", r.positionsPerSequence, r.passes);
    out += fmt::format("Tokens decoded: {} prompt + {} generated in {:.2f} s | generated tokens: {} | total: {:.1f} tok/s\n", r.promptTokensDecoded,
          r.generatedTokensDecoded, r.seconds, generated, r.seconds > 0 ? double(generated) / r.seconds : 0.0);
    out += fmt::format("KV cells: at most {} of {} used | {} written, {} of them into cells freed by finished sequences or a context shift\n", r.maxCellsUsed,
          contextLength, r.cellsWritten, r.cellsReused);
    return out;
}

}  // namespace llama::cli
