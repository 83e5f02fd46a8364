#include "train/lr_schedule.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>

#include "io/input_file.h"
#include "io/json_file.h"

namespace llama {

std::vector<LrPoint> readLrSchedule(const std::string& path) {
    const std::string text = readInputFile(path, "learning-rate schedule");
    std::vector<LrPoint> points;
    forEachJsonLine(text, "learning-rate schedule", path, [&](const nlohmann::json& record, const std::string& where) {
        if (!record.is_object()) throw std::invalid_argument(fmt::format("{}: expected an object such as {{\"step\": 125, \"lr\": 0.0015}}", where));
        if (!record.contains("lr")) return;
        const nlohmann::json& step = record.value("step", nlohmann::json());
        const nlohmann::json& lr = record["lr"];
        const int after = points.empty() ? 0 : points.back().step;
        if (!step.is_number_integer() || step.get<int64_t>() <= after || step.get<int64_t>() > (1 << 24))
            throw std::invalid_argument(fmt::format("{}: \"step\" is {}; expected a whole number of steps above {} (the records in order), at most 16777216",
                                                    where, step.dump(), after));
        if (!lr.is_number() || !std::isfinite(lr.get<double>()) || lr.get<double>() < 0 || lr.get<double>() > 1)
            throw std::invalid_argument(fmt::format("{}: \"lr\" is {}; expected a learning rate from 0 to 1", where, lr.dump()));
        points.push_back({int(step.get<int64_t>()), lr.get<float>()});
    });
    if (points.empty())
        throw std::invalid_argument(fmt::format("learning-rate schedule '{}' holds no record; expected JSON lines such as {{\"step\": 125, \"lr\": 0.0015}}", path));
    return points;
}

}  // namespace llama
