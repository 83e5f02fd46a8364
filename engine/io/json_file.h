#pragma once
// Reading a JSON file with errors that name it: params.json, config.json, tokenizer.json, ...
#include <nlohmann/json.hpp>
#include <functional>
#include <optional>
#include <string>

namespace llama {

// Throws std::runtime_error "cannot open 'PATH'" or "PATH: not valid JSON: ...".
nlohmann::json readJsonFile(const std::string& path);
// The same, and the top level must be an object ("PATH: expected a JSON object").
nlohmann::json readJsonObject(const std::string& path);
// Each line of `text` that is not blank (JSON lines read from `path`), parsed and handed to `use`
// with where it stands ("ROLE 'PATH' line N", for the caller's own errors). A line that is not
// JSON throws std::invalid_argument "ROLE 'PATH' line N is not JSON: ...".
void forEachJsonLine(const std::string& text, const std::string& role, const std::string& path,
                     const std::function<void(const nlohmann::json& value, const std::string& where)>& use);

// Typed fields of one JSON object; errors name the file and the key. A field that is absent or
// null takes the fallback, or is an error when there is none.
class JsonFields {
public:
    JsonFields(const nlohmann::json& object, std::string path) : o_(object), path_(std::move(path)) {}
    bool has(const char* key) const { return o_.contains(key) && !o_[key].is_null(); }
    double number(const char* key, std::optional<double> fallback) const;
    // A whole number within int's range (a 1e300 is refused, not converted).
    int integer(const char* key, std::optional<int> fallback) const;
    bool boolean(const char* key, bool fallback) const;
    [[noreturn]] void fail(const std::string& what) const;

private:
    const nlohmann::json& o_;
    std::string path_;
};

}  // namespace llama
