#pragma once
// A regular expression for text whose length nobody bounds (documents, program output): PCRE2,
// the pre-tokenizer's engine (its matcher keeps its backtracking on the heap, within the limits
// set here), not std::regex, whose matcher recurses per character and overflows the stack on a
// long line.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llama {

// PCRE2's words for an error code.
std::string pcre2Message(int code);

class Pattern {
public:
    // Throws std::invalid_argument naming the offset where `regex` does not compile.
    explicit Pattern(std::string_view regex);
    ~Pattern();
    Pattern(Pattern&&) noexcept;
    Pattern& operator=(Pattern&&) noexcept;

    // The whole of `text` matched: every group's text ("" when a group took no part), group 0 first.
    std::optional<std::vector<std::string>> matchWhole(std::string_view text) const;
    // Every match, left to right, as (offset, length).
    std::vector<std::pair<size_t, size_t>> findAll(std::string_view text) const;
    // `text` with every match replaced by `with` (taken literally).
    std::string replaceAll(std::string_view text, std::string_view with) const;

    // `text` as a pattern that matches it literally.
    static std::string quote(std::string_view text);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace llama
