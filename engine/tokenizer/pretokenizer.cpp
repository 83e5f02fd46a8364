#include "tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

#include "tokenizer/pcre2_pattern.h"

namespace llama {

struct RegexSplitter::Impl {
    pcre2_code* code = nullptr;
    ~Impl() { pcre2_code_free(code); }
};

RegexSplitter::RegexSplitter(std::string_view pattern) : impl_(std::make_unique<Impl>()) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (!impl_->code)
        throw std::invalid_argument("pre-tokenizer regex does not compile at offset " + std::to_string(offset) +
                                    ": " + pcre2Message(error));
    // JIT is only an optimisation: without it (unsupported CPU, or a build without JIT)
    // pcre2_match interprets the pattern and gives the same matches.
    pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);
}

RegexSplitter::~RegexSplitter() = default;
RegexSplitter::RegexSplitter(RegexSplitter&&) noexcept = default;
RegexSplitter& RegexSplitter::operator=(RegexSplitter&&) noexcept = default;

std::vector<std::string_view> RegexSplitter::split(std::string_view text) const {
    std::vector<std::string_view> pieces;
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        pcre2_match_data_create_from_pattern(impl_->code, nullptr), &pcre2_match_data_free);
    if (!match) throw std::bad_alloc();
    const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t pos = 0;
    while (pos < text.size()) {
        int rc = pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)  // a huge backtracking match: let the interpreter try
            rc = pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT,
                             match.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) {
            pieces.push_back(text.substr(pos));  // cannot happen with Llama 3's pattern (\s+ etc. cover everything)
            break;
        }
        if (rc < 0) throw std::runtime_error("pre-tokenizer regex match failed: " + pcre2Message(rc));
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
        size_t begin = ovector[0], end = ovector[1];
        if (begin > pos) pieces.push_back(text.substr(pos, begin - pos));  // keep unmatched text too
        if (end == begin) {
            // An empty match would loop forever; Llama 3's pattern has none, other patterns
            // might. Take one character as its own piece instead.
            end = begin + 1;
            while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
        }
        pieces.push_back(text.substr(begin, end - begin));
        pos = end;
    }
    return pieces;
}

}  // namespace llama
