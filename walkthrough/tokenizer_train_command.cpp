#include "tokenizer_train_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "io/atomic_output.h"
#include "io/input_file.h"
#include "options/checked_option.h"
#include "quoted_bytes.h"
#include "tokenizer/bpe_trainer.h"
#include "tokenizer/tiktoken_file.h"
#include "tokenizer/utf8.h"

namespace llama::cli {

namespace {

constexpr int kMaxVocab = 1 << 24;

std::string trainingText(const std::string& path) {
    // The pieces (a string_view each) and their counts cost a few bytes per byte of text.
    std::string text = readInputFile(path, "training text", 8);
    if (text.empty()) throw std::invalid_argument(fmt::format("training text '{}' is empty; expected UTF-8 text to learn merges from", path));
    if (const auto bad = firstInvalidUtf8(text))
        throw std::invalid_argument(fmt::format("training text '{}' is not valid UTF-8: byte 0x{:02X} at byte offset {}", path,
                                                static_cast<unsigned char>(text[*bad]), *bad));
    // make_corpus.py ends each chapter with a line holding only a form feed; train_tokenizer.py
    // drops every "\f\n" before counting, and so do we, or the tokenizer would not be the same.
    std::string kept;
    kept.reserve(text.size());
    size_t pos = 0;
    for (size_t separator; (separator = text.find("\f\n", pos)) != std::string::npos; pos = separator + 2)
        kept.append(text, pos, separator - pos);
    kept.append(text, pos);
    return kept;
}

// What each merge prints, and the pause after it with --step: plain lines in and out, as the
// run's stepper (stepper.h) reads them, so a script can be piped in.
class MergeWatcher {
public:
    MergeWatcher(const TokenizerTrainOptions& o, size_t vocab)
        : showMerges_(size_t(o.showMerges)), stepping_(o.step), vocab_(vocab), echo_(!isatty(STDIN_FILENO)),
          progress_(isatty(STDERR_FILENO) != 0) {}

    void operator()(const BpeMerge& m, const std::vector<std::string>& tokens) {
        if (stepping_ || m.index < showMerges_) {
            clearProgress();
            fmt::print("merge {}: {} + {} -> {}, rank {}, count {}\n", m.index + 1, quotedBytes(tokens[size_t(m.left)]),
                       quotedBytes(tokens[size_t(m.right)]), quotedBytes(tokens[size_t(m.id)]), m.id, m.count);
        }
        if (stepping_) pause();
        showProgress(tokens.size());
    }

    void finish() { clearProgress(); }

private:
    void pause() {
        for (;;) {
            fmt::print("merge> ");
            std::fflush(stdout);
            std::string line;
            if (!std::getline(std::cin, line)) {
                fmt::print("\n(end of input: learning the rest)\n");
                stepping_ = false;
                return;
            }
            if (echo_) fmt::print("{}\n", line);
            if (line.empty()) return;
            if (line == "c") {
                stepping_ = false;
                return;
            }
            fmt::print("Enter: the next merge; c: learn the rest without stopping\n");
        }
    }

    // Only on a terminal, and only while nothing else is printing: a log or a test's output gets
    // no carriage returns.
    void showProgress(size_t ranks) {
        if (!progress_ || stepping_) return;
        const size_t percent = 100 * (ranks - 256) / std::max<size_t>(vocab_ - 256, 1);
        if (percent == lastPercent_) return;
        lastPercent_ = percent;
        fmt::print(stderr, "\rLearning merges: {} / {} ranks ({}%)", ranks, vocab_, percent);
        progressShown_ = true;
    }
    void clearProgress() {
        if (progressShown_) fmt::print(stderr, "\n");
        progressShown_ = false;
    }

    size_t showMerges_;
    bool stepping_;
    size_t vocab_;
    bool echo_, progress_;
    bool progressShown_ = false;
    size_t lastPercent_ = SIZE_MAX;
};

}  // namespace

CLI::App* addTokenizerTrainCommand(CLI::App& app, TokenizerTrainOptions& o) {
    CLI::App* cmd = app.add_subcommand("tokenizer-train",
                                       "Learn a byte-level BPE (Llama 3's pre-tokenizer) from a text and write a tiktoken tokenizer.model");
    cmd->add_option("--text", o.text,
                    "UTF-8 text to learn from (every \"\\f\\n\", the corpus's chapter separator, is dropped first); the bundled "
                    "tokenizer's is made by assets/make_corpus.py")
        ->option_text("FILE REQUIRED")
        ->required();
    cmd->add_option("--out", o.out, "Where to write the tiktoken file")->option_text("FILE REQUIRED")->required();
    options::addInteger(*cmd, "--vocab", o.vocab, {256, kMaxVocab, fmt::format("a rank count from 256 (the single bytes) to {}", kMaxVocab)},
                        "Ranks in the file, the 256 single bytes included");
    cmd->add_flag("--force", o.force, "Replace --out if it exists");
    options::addInteger(*cmd, "--show-merges", o.showMerges, {0, kMaxVocab, "a merge count from 0"},
                        "Print the first N merges as they are learned");
    cmd->add_flag("--step", o.step, "Pause after each merge: Enter for the next, c to learn the rest");
    return cmd;
}

int runTokenizerTrain(const TokenizerTrainOptions& o) {
    if (!o.force && std::filesystem::exists(o.out))
        throw std::invalid_argument(fmt::format("--out '{}' exists; --force replaces it", o.out));
    checkOutputPath("--out", o.out, {o.text});
    const auto start = std::chrono::steady_clock::now();
    const std::string text = trainingText(o.text);
    const std::vector<CountedPiece> pieces = countPieces(text);
    int64_t total = 0;
    for (const CountedPiece& p : pieces) total += p.count;
    fmt::print("{}: {} pieces, {} distinct\n", o.text, total, pieces.size());
    std::fflush(stdout);

    MergeWatcher watcher(o, size_t(o.vocab));
    const std::vector<std::string> tokens =
        trainBpe(pieces, size_t(o.vocab), [&](const BpeMerge& m, const std::vector<std::string>& t) { watcher(m, t); });
    watcher.finish();
    if (tokens.size() < size_t(o.vocab))
        throw std::invalid_argument(fmt::format("--vocab {}: '{}' gives only {} ranks (then no piece has two tokens left); nothing written",
                                                o.vocab, o.text, tokens.size()));
    AtomicOutputFile out(o.out);
    writeTiktokenRanks(out.stream(), tokens);
    out.commit();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("Wrote {} ranks to {} in {:.2f} s\n", tokens.size(), o.out, seconds);
    return 0;
}

}  // namespace llama::cli
