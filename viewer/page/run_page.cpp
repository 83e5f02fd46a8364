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

// JSON inside <script type="application/json">: "</" would end the element early ("<\/" is the
// same JSON string), and "<!--" would open a script comment.
std::string scriptSafe(std::string json) {
    for (size_t at = 0; (at = json.find("</", at)) != std::string::npos; at += 3) json.replace(at, 2, "<\\/");
    for (size_t at = 0; (at = json.find("<!--", at)) != std::string::npos; at += 5) json.replace(at, 4, "<\\!--");
    return json;
}

std::string htmlEscape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace

std::string runPageHtml(const RunPageOptions& o) {
    auto run = std::make_shared<const TraceRun>(readTrace(o.tracePath));
    const nlohmann::json data = runPageData(run, o);
    const WebAssets& web = webAssets();
    const std::string title = htmlEscape("Llama run: " + run->run.prompt);
    const std::string json = scriptSafe(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    const std::string page = fillSlots(web.html, {{"@TITLE@", title}, {"/*@STYLE@*/", web.css}, {"@DATA@", json}, {"/*@SCRIPT@*/", web.script}});
    return page;
}

void writeRunPage(const RunPageOptions& o, const std::string& outPath) {
    const std::string page = runPageHtml(o);  // before the file is opened: a bad trace leaves nothing behind
    AtomicOutputFile out(outPath);
    out.stream() << page;
    out.commit();
}

}  // namespace llama::page
