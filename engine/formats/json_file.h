#pragma once
// Reading a JSON file with errors that name it: params.json, config.json, tokenizer.json, ...
#include <nlohmann/json.hpp>
#include <string>

namespace llama {

// Throws std::runtime_error "cannot open 'PATH'" or "PATH: not valid JSON: ...".
nlohmann::json readJsonFile(const std::string& path);
// The same, and the top level must be an object ("PATH: expected a JSON object").
nlohmann::json readJsonObject(const std::string& path);

}  // namespace llama
