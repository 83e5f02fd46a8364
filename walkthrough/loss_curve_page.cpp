#include "loss_curve_page.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace llama::cli {

std::string lossRecordJson(const LossRecord& r) {
    std::string line = fmt::format(R"({{"step": {}, "train_loss": {:.6f}, "lr": {:.6g}, "tokens": {}, "elapsed": {:.2f})", r.step, r.trainLoss, r.lr,
                                   r.tokens, r.elapsed);
    if (r.heldoutLoss) line += fmt::format(R"(, "heldout_loss": {:.6f})", *r.heldoutLoss);
    return line + "}";
}

std::optional<LossRecord> parseLossRecord(const std::string& line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("step") || !j["step"].is_number_integer() || !j.contains("train_loss") || !j["train_loss"].is_number())
        return std::nullopt;
    LossRecord r;
    r.step = j["step"];
    r.trainLoss = j["train_loss"];
    r.lr = j.value("lr", 0.0);
    r.tokens = j.value("tokens", int64_t(0));
    r.elapsed = j.value("elapsed", 0.0);
    if (j.contains("heldout_loss") && j["heldout_loss"].is_number()) r.heldoutLoss = j["heldout_loss"].get<double>();
    return r;
}

namespace {

std::string escapeHtml(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

}  // namespace

LossAxes lossAxes(const std::vector<LossRecord>& records) {
    LossAxes a;
    if (records.empty()) return a;
    a.low = 1e300, a.high = -1e300;
    for (const LossRecord& r : records) {
        a.lastStep = std::max(a.lastStep, r.step);
        for (double v : {r.trainLoss, r.heldoutLoss.value_or(r.trainLoss)}) a.low = std::min(a.low, v), a.high = std::max(a.high, v);
    }
    a.low = std::floor(a.low), a.high = std::ceil(a.high);
    if (a.high <= a.low) a.high = a.low + 1;
    return a;
}

std::string lossCurvePage(const std::vector<LossRecord>& records, const std::string& title) {
    constexpr double W = 720, H = 420, left = 60, right = 20, top = 30, bottom = 50;
    const LossAxes axes = lossAxes(records);
    const int lastStep = axes.lastStep;
    const double low = axes.low, high = axes.high;
    auto x = [&](int step) { return left + (W - left - right) * step / lastStep; };
    auto y = [&](double loss) { return top + (H - top - bottom) * (high - loss) / (high - low); };

    std::string svg = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" style="width:100%;max-width:{}px;height:auto" font-family="sans-serif" font-size="12">)",
                                  W, H, W);
    svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#444"/><line x1="{0}" y1="{2}" x2="{3}" y2="{2}" stroke="#444"/>)", left, top,
                       H - bottom, W - right);
    for (double v = low; v <= high + 1e-9; v += 1)
        svg += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end">{:.0f}</text><line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#ddd"/>)",
                           left - 6, y(v) + 4, v, left, y(v), W - right, y(v));
    for (int k = 0; k <= 4; ++k) {
        const int step = lastStep * k / 4;
        svg += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>)", x(step), H - bottom + 18, step);
    }
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">step</text>)", (W + left) / 2, H - 10);
    svg += fmt::format(R"svg(<text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle">loss (nats per token)</text>)svg", (H - bottom + top) / 2,
                       (H - bottom + top) / 2);
    std::string line;
    for (const LossRecord& r : records) line += fmt::format("{:.1f},{:.1f} ", x(r.step), y(r.trainLoss));
    svg += fmt::format(R"(<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{}"/>)", line);
    for (const LossRecord& r : records)
        if (r.heldoutLoss) svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="#d62728"><title>step {}: held-out {:.4f}</title></circle>)", x(r.step), y(*r.heldoutLoss), r.step, *r.heldoutLoss);
    svg += fmt::format(R"(<text x="{}" y="18" fill="#1f77b4">training loss</text><text x="{}" y="18" fill="#d62728">held-out loss</text></svg>)", left + 10,
                       left + 130);
    std::string heldout = "none measured";
    for (auto r = records.rbegin(); r != records.rend(); ++r)
        if (r->heldoutLoss) {
            heldout = fmt::format("{:.4f} nats per token at step {}", *r->heldoutLoss, r->step);
            break;
        }
    return fmt::format(R"(<!doctype html><html><head><meta charset="utf-8"><title>{0}</title></head><body style="font-family:sans-serif">
<h1>{0}</h1>
{1}
<p>{2} steps logged; last held-out loss: {3}.</p>
</body></html>
)",
                       escapeHtml(title), svg, records.size(), heldout);
}

}  // namespace llama::cli
