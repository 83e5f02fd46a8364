#include "page/run_page.h"

#include "io/atomic_output.h"

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
    return "'sha256-" + base64(bytes.data(), bytes.size()) + "'";
}

}  // namespace

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

std::string runPageHtml(const RunPageOptions& o) {
    checkChapterBase(o.chapterBase);
    auto run = std::make_shared<const TraceRun>(readTrace(o.tracePath));
    const nlohmann::json data = runPageData(run, o);
    const WebAssets& web = webAssets();
    const std::string title = htmlEscape("Llama run: " + run->run.prompt);
    const std::string page = fillSlots(web.html, {{"@SCRIPT_HASH@", cspHash(web.scriptSha256)}, {"@TITLE@", title}, {"/*@STYLE@*/", web.css},
                                                  {"@DATA@", scriptSafeJson(data)}, {"/*@SCRIPT@*/", web.script}});
    return page;
}

void writeRunPage(const RunPageOptions& o, const std::string& outPath) {
    checkOutputPath("the page", outPath, {o.tracePath, o.comparePath.value_or("")});
    const std::string page = runPageHtml(o);  // before the file is opened: a bad trace leaves nothing behind
    AtomicOutputFile out(outPath);
    out.stream() << page;
    out.commit();
}

}  // namespace llama::page
