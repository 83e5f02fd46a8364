#include "formats/json_file.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

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

}  // namespace llama
