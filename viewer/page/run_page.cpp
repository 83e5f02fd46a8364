#include "page/run_page.h"

#include <fmt/format.h>

#include "io/atomic_output.h"
#include "io/base64.h"

namespace llama::page {

namespace {

// The template with its slots filled, in the order they appear: a slot's text (a prompt, say)
// is never searched for the next slot.
std::string fillSlots(std::string_view tpl, std::initializer_list<std::pair<std::string_view, std::string_view>> slots) {
    std::string page;
    size_t from = 0;
    for (const auto& [marker, text] : slots) {
        const size_t at = tpl.find(marker, from);
        if (at == std::string_view::npos) throw std::logic_error("viewer/web/run_page.html has no " + std::string(marker));
        page.append(tpl.substr(from, at - from));
        page.append(text);
        from = at + marker.size();
    }
    page.append(tpl.substr(from));
    return page;
}

// 'sha256-BASE64' for the CSP, from the build's hex digest.
std::string cspHash(std::string_view hex) {
    std::string bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes += char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
    return "'sha256-" + encodeBase64(bytes.data(), bytes.size()) + "'";
}

}  // namespace

std::string dataChecksum(std::string_view data) {
    // FNV-1a: five lines here and in run_page.js, where a library would be a dependency on both sides.
    uint32_t h = 2166136261u;
    for (unsigned char c : data) h = (h ^ c) * 16777619u;
    return fmt::format("{:08x}", h);
}

std::string htmlEscape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string scriptSafeJson(const nlohmann::json& data) {
    // In a <script> element "</script" ends it and "<!--" opens a script comment. Outside its
    // strings JSON has no < > &, so writing them as \u escapes keeps the same JSON and leaves the
    // HTML parser nothing to see.
    const std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(json.size());
    for (char c : json) {
        switch (c) {
            case '<': out += "\\u003c"; break;
            case '>': out += "\\u003e"; break;
            case '&': out += "\\u0026"; break;
            default: out += c;
        }
    }
    return out;
}

std::string arithmeticNote(const nlohmann::json& data) {
    const nlohmann::json& a = data.at("arithmetic");
    const int leftOut = a.at("leftOut"), kept = a.at("kept");
    if (leftOut == 0) return "";
    return fmt::format("The page keeps every cell's attention arithmetic for {} of the {} recorded attentions (the prefill first, then the "
                       "steps in order) to stay within {} MB; `{}` keeps all of it.",
                       kept, kept + leftOut + a.at("notRecorded").get<int>(), a.at("budgetMB").get<double>(), a.at("allOf").get<std::string>());
}

std::string runPageHtml(const RunPageOptions& options, std::string* note) {
    checkChapterBase(options.chapterBase);
    RunPageOptions o = options;
    if (!o.patch && isPatchTrace(o.tracePath)) o.patch = std::make_shared<const PatchTrace>(readPatchTrace(o.tracePath));
    if (o.patch && o.comparePath) throw std::invalid_argument("a patch trace holds its own comparison (the corrupted run): --compare does not apply");
    auto run = o.patch ? std::make_shared<const TraceRun>(o.patch->clean) : std::make_shared<const TraceRun>(readTrace(o.tracePath));
    const WebAssets& web = webAssets();
    const std::string title = htmlEscape("Llama run: " + run->run.prompt);
    auto fill = [&](const std::string& json) {
        return fillSlots(web.html, {{"@SCRIPT_HASH@", cspHash(web.guardSha256) + " " + cspHash(web.scriptSha256)}, {"@TITLE@", title},
                                    {"/*@STYLE@*/", web.css}, {"/*@GUARD@*/", web.guard}, {"@CHECKSUM@", dataChecksum(json)},
                                    {"@DATA@", json}, {"/*@SCRIPT@*/", web.script}});
    };
    o.fixedBytes = fill("").size();  // everything but the data: the guard, title and hashes too
    const nlohmann::json data = runPageData(run, o);
    if (note) *note = arithmeticNote(data);
    return fill(scriptSafeJson(data));
}

std::string writeRunPage(const RunPageOptions& o, const std::string& outPath) {
    checkOutputPath("the page", outPath, {o.tracePath, o.comparePath.value_or("")});
    std::string note;
    const std::string page = runPageHtml(o, &note);  // before the file is opened: a bad trace leaves nothing behind
    AtomicOutputFile out(outPath);
    out.stream() << page;
    out.commit();
    return note;
}

}  // namespace llama::page
