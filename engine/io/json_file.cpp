#include "io/json_file.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace llama {

nlohmann::json readJsonFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open '" + path + "'");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::runtime_error(fmt::format("{}: not valid JSON: {}", path, e.what()));
    }
}

nlohmann::json readJsonObject(const std::string& path) {
    nlohmann::json j = readJsonFile(path);
    if (!j.is_object()) throw std::runtime_error(path + ": expected a JSON object");
    return j;
}

void forEachJsonLine(const std::string& text, const std::string& role, const std::string& path,
                     const std::function<void(const nlohmann::json& value, const std::string& where)>& use) {
    size_t start = 0;
    for (int line = 1; start < text.size(); ++line) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view json = std::string_view(text).substr(start, end - start);
        start = end + 1;
        if (json.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // a blank line
        const std::string where = fmt::format("{} '{}' line {}", role, path, line);
        nlohmann::json value;
        try {
            value = nlohmann::json::parse(json);
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument(fmt::format("{} is not JSON: {}", where, e.what()));
        }
        use(value, where);
    }
}

void JsonFields::fail(const std::string& what) const { throw std::runtime_error(path_ + ": " + what); }

double JsonFields::number(const char* key, std::optional<double> fallback) const {
    if (!has(key)) {
        if (!fallback) fail(fmt::format("missing field '{}'", key));
        return *fallback;
    }
    if (!o_[key].is_number()) fail(fmt::format("field '{}' must be a number", key));
    return o_[key].get<double>();
}

int JsonFields::integer(const char* key, std::optional<int> fallback) const {
    const double v = number(key, fallback);
    constexpr double lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    if (!(v >= lo && v <= hi) || v != std::floor(v))
        fail(fmt::format("field '{}' is {}: expected a whole number from {} to {}", key, o_[key].dump(), int(lo), int(hi)));
    return int(v);
}

bool JsonFields::boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!o_[key].is_boolean()) fail(fmt::format("field '{}' must be true or false", key));
    return o_[key].get<bool>();
}

}  // namespace llama
