#include "trace/trace_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace llama {

using nlohmann::json;

namespace {
// A value as an error shows it: as JSON when short, else by its kind and size (a hostile trace's
// megabyte string is not repeated in the message).
std::string shown(const json& v) {
    constexpr size_t kShownBytes = 64;
    if (v.is_string() && v.get_ref<const std::string&>().size() > kShownBytes)
        return fmt::format("a string of {} bytes", v.get_ref<const std::string&>().size());
    const bool structured = v.is_array() || v.is_object();
    if (!structured || v.size() <= 8) {
        std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
        if (text.size() <= kShownBytes) return text;
    }
    return fmt::format("an {} of {} entries", v.is_array() ? "array" : "object", v.size());
}
}  // namespace

std::string TraceField::name() const { return path_.empty() ? std::string("the record") : fmt::format("field '{}'", path_); }

void TraceField::unexpected(std::string_view what) const { throw TraceError(fmt::format("{} is {}: expected {}", name(), shown(value_), what)); }

void TraceField::fail(std::string_view what) const { throw TraceError(fmt::format("{}: {}", name(), what)); }

std::string TraceField::memberPath(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

TraceField TraceField::operator[](std::string_view key) const {
    if (!value_.is_object()) unexpected("an object");
    const auto it = value_.find(key);
    if (it == value_.end()) throw TraceError(fmt::format("field '{}' is missing", memberPath(key)));
    return TraceField(*it, memberPath(key));
}

std::optional<TraceField> TraceField::optional(std::string_view key) const {
    if (!value_.is_object()) unexpected("an object");
    const auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return std::nullopt;
    return TraceField(*it, memberPath(key));
}

std::optional<TraceField> TraceField::nullable(std::string_view key) const {
    TraceField member = (*this)[key];
    if (member.value_.is_null()) return std::nullopt;
    return member;
}

TraceField TraceField::operator[](size_t index) const {
    if (!value_.is_array() || index >= value_.size()) unexpected(fmt::format("an array of more than {} entries", index));
    return TraceField(value_[index], fmt::format("{}[{}]", path_, index));
}

size_t TraceField::list(size_t maxSize) const {
    if (!value_.is_array()) unexpected("an array");
    if (value_.size() > maxSize) throw TraceError(fmt::format("{} has {} entries: expected at most {}", name(), value_.size(), maxSize));
    return value_.size();
}

bool TraceField::wholeIn(int64_t lo, int64_t hi) const {
    // Above INT64_MAX, an unsigned number must not wrap around into the range.
    if (!value_.is_number_integer() || (value_.is_number_unsigned() && value_.get<uint64_t>() > uint64_t(INT64_MAX))) return false;
    return value_.get<int64_t>() >= lo && value_.get<int64_t>() <= hi;
}

int64_t TraceField::integer64(int64_t lo, int64_t hi) const {
    if (!wholeIn(lo, hi)) unexpected(fmt::format("a whole number from {} to {}", lo, hi));
    return value_.get<int64_t>();
}

int TraceField::integer(int lo, int hi, std::string_view what) const {
    if (!wholeIn(lo, hi)) unexpected(fmt::format("{} from {} to {}", what, lo, hi));
    return int(value_.get<int64_t>());
}

bool TraceField::boolean() const {
    if (!value_.is_boolean()) unexpected("true or false");
    return value_.get<bool>();
}

std::string TraceField::text(size_t maxBytes) const {
    if (!value_.is_string()) unexpected(fmt::format("a string of at most {} bytes", maxBytes));
    const std::string& s = value_.get_ref<const std::string&>();
    if (s.size() > maxBytes) throw TraceError(fmt::format("{} has {} bytes: expected a string of at most {}", name(), s.size(), maxBytes));
    return s;
}

std::string TraceField::oneOf(std::initializer_list<std::string_view> choices) const {
    if (value_.is_string())
        for (std::string_view c : choices)
            if (value_.get_ref<const std::string&>() == c) return std::string(c);
    std::string expected;
    for (size_t i = 0; i < choices.size(); ++i)
        expected += fmt::format("{}\"{}\"", i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ", choices.begin()[i]);
    unexpected(expected);
}

double TraceField::number() const {
    if (!value_.is_number()) unexpected("a number");
    return value_.get<double>();
}

double TraceField::finite() const {
    if (!value_.is_number() || !std::isfinite(value_.get<double>())) unexpected("a finite number");
    return value_.get<double>();
}

float TraceField::traceFloat() const {
    if (value_.is_number()) return value_.get<float>();
    if (value_ == "inf") return std::numeric_limits<float>::infinity();
    if (value_ == "-inf") return -std::numeric_limits<float>::infinity();
    if (value_ == "nan") return std::numeric_limits<float>::quiet_NaN();
    unexpected("a number, \"inf\", \"-inf\" or \"nan\"");
}

TraceToken readTraceToken(const TraceField& token, const ModelArgs& args) {
    return {token["id"].integer(0, args.vocab_size - 1), token["piece"].text(kMaxTracePieceBytes), token["special"].boolean()};
}

std::vector<TraceToken> readTraceTokens(const TraceField& list, const ModelArgs& args, int64_t maxCount, std::string_view limit) {
    const size_t n = list.list();
    if (int64_t(n) > maxCount && limit.empty())
        list.fail(fmt::format("{} tokens listed: a run of at most {} positions holds at most {}", n, args.max_seq_len, maxCount));
    if (int64_t(n) > maxCount) list.fail(fmt::format("{} tokens listed: expected at most {} ({})", n, maxCount, limit));
    std::vector<TraceToken> out;
    for (size_t i = 0; i < n; ++i) out.push_back(readTraceToken(list[i], args));
    return out;
}

}  // namespace llama
