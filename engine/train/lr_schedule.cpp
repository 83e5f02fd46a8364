#include "train/lr_schedule.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>
#include <string_view>

#include "io/input_file.h"

namespace llama {

std::vector<LrPoint> readLrSchedule(const std::string& path) {
    const std::string text = readInputFile(path, "learning-rate schedule");
    std::vector<LrPoint> points;
    size_t start = 0;
    for (int line = 1; start < text.size(); ++line) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view json = std::string_view(text).substr(start, end - start);
        start = end + 1;
        if (json.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const std::string where = fmt::format("learning-rate schedule '{}' line {}", path, line);
        nlohmann::json record;
        try {
            record = nlohmann::json::parse(json);
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument(fmt::format("{} is not JSON: {}", where, e.what()));
        }
        if (!record.is_object()) throw std::invalid_argument(fmt::format("{}: expected an object such as {{\"step\": 125, \"lr\": 0.0015}}", where));
        if (!record.contains("lr")) continue;
        const nlohmann::json& step = record.value("step", nlohmann::json());
        const nlohmann::json& lr = record["lr"];
        const int after = points.empty() ? 0 : points.back().step;
        if (!step.is_number_integer() || step.get<int64_t>() <= after || step.get<int64_t>() > (1 << 24))
            throw std::invalid_argument(fmt::format("{}: \"step\" is {}; expected a whole number of steps above {} (the records in order), at most 16777216",
                                                    where, step.dump(), after));
        if (!lr.is_number() || !std::isfinite(lr.get<double>()) || lr.get<double>() < 0 || lr.get<double>() > 1)
            throw std::invalid_argument(fmt::format("{}: \"lr\" is {}; expected a learning rate from 0 to 1", where, lr.dump()));
        points.push_back({int(step.get<int64_t>()), lr.get<float>()});
    }
    if (points.empty())
        throw std::invalid_argument(fmt::format("learning-rate schedule '{}' holds no record; expected JSON lines such as {{\"step\": 125, \"lr\": 0.0015}}", path));
    return points;
}

}  // namespace llama
