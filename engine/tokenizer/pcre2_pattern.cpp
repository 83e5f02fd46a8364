#include "tokenizer/pcre2_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

namespace llama {

std::string pcre2Message(int code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof buf);
    return reinterpret_cast<const char*>(buf);
}

namespace {
// A pathological pattern against a long line ends in an error, not in minutes of backtracking.
constexpr uint32_t kMatchLimit = 10'000'000;
}  // namespace

struct Pattern::Impl {
    pcre2_code* code = nullptr;
    pcre2_match_context* context = nullptr;
    ~Impl() {
        pcre2_match_context_free(context);
        pcre2_code_free(code);
    }

    // Group 0's (begin, end) of the first match at or after `from`, or nullopt; the data keeps every group.
    bool match(std::string_view text, size_t from, uint32_t options, pcre2_match_data* data) const {
        const int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), from, options, data, context);
        if (rc == PCRE2_ERROR_NOMATCH) return false;
        if (rc < 0) throw std::runtime_error("matching a line of " + std::to_string(text.size()) + " bytes failed: " + pcre2Message(rc));
        return true;
    }
};

Pattern::Pattern(std::string_view regex) : impl_(std::make_unique<Impl>()) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(), 0, &error, &offset, nullptr);
    if (!impl_->code && error == PCRE2_ERROR_PATTERN_TOO_LARGE)
        throw std::invalid_argument("a pattern of " + std::to_string(regex.size()) + " bytes is too long to match (" + pcre2Message(error) +
                                    "): shorten the expected line, or elide part of it with ...");
    if (!impl_->code) throw std::invalid_argument("pattern does not compile at offset " + std::to_string(offset) + ": " + pcre2Message(error));
    impl_->context = pcre2_match_context_create(nullptr);
    if (!impl_->context) throw std::bad_alloc();
    pcre2_set_match_limit(impl_->context, kMatchLimit);
}

Pattern::~Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;

namespace {
using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
MatchData matchData(const pcre2_code* code) {
    MatchData data(pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
    if (!data) throw std::bad_alloc();
    return data;
}
}  // namespace

std::optional<std::vector<std::string>> Pattern::matchWhole(std::string_view text) const {
    const MatchData data = matchData(impl_->code);
    if (!impl_->match(text, 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, data.get())) return std::nullopt;
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    std::vector<std::string> groups;
    for (uint32_t g = 0; g < pcre2_get_ovector_count(data.get()); ++g)
        groups.push_back(ovector[2 * g] == PCRE2_UNSET ? "" : std::string(text.substr(ovector[2 * g], ovector[2 * g + 1] - ovector[2 * g])));
    uint32_t captures = 0;
    pcre2_pattern_info(impl_->code, PCRE2_INFO_CAPTURECOUNT, &captures);
    groups.resize(captures + 1);
    return groups;
}

std::vector<std::pair<size_t, size_t>> Pattern::findAll(std::string_view text) const {
    const MatchData data = matchData(impl_->code);
    std::vector<std::pair<size_t, size_t>> found;
    for (size_t from = 0; from <= text.size() && impl_->match(text, from, 0, data.get());) {
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
        found.emplace_back(ovector[0], ovector[1] - ovector[0]);
        from = ovector[1] > ovector[0] ? ovector[1] : ovector[1] + 1;  // an empty match moves on by one
    }
    return found;
}

std::string Pattern::replaceAll(std::string_view text, std::string_view with) const {
    std::string out;
    size_t last = 0;
    for (const auto& [at, length] : findAll(text)) {
        out.append(text.substr(last, at - last));
        out.append(with);
        last = at + length;
    }
    out.append(text.substr(last));
    return out;
}

std::string Pattern::quote(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return out;
}

}  // namespace llama
