#pragma once
// The pre-tokenizer: a regular expression cuts text into pieces (words with their leading
// space, runs of up to 3 digits, punctuation, whitespace) and BPE then runs inside each
// piece, so no token ever spans two pieces. PCRE2 in UTF mode with Unicode properties
// (\p{L}, \p{N}, Unicode \s), JIT-compiled when the library supports it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llama {

// Llama 3's pattern (the same as OpenAI's cl100k_base).
inline constexpr std::string_view kLlama3SplitPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

class RegexSplitter {
public:
    explicit RegexSplitter(std::string_view pattern);  // throws std::invalid_argument if it does not compile
    ~RegexSplitter();
    RegexSplitter(RegexSplitter&&) noexcept;
    RegexSplitter& operator=(RegexSplitter&&) noexcept;

    // The pieces, in order; together they are exactly `text`. `text` must already be valid
    // UTF-8 (the caller checks once; PCRE2 would otherwise re-check it at every match).
    // Thread-safe: each call uses its own match data.
    std::vector<std::string_view> split(std::string_view text) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace llama
