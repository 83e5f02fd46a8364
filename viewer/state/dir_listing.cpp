#include "state/dir_listing.h"

#include <algorithm>
#include <filesystem>

namespace llama::viewer {

DirListing listDirectory(const std::string& dir, const std::string& extension) {
    namespace fs = std::filesystem;
    DirListing l;
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(dir.empty() ? "." : dir, ec), ec);
    l.dir = p.string();
    if (!fs::is_directory(p, ec)) {
        l.error = l.dir + ": not a directory";
        return l;
    }
    fs::directory_iterator it(p, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
        l.error = l.dir + ": " + ec.message();
        return l;
    }
    for (const auto& e : it) {
        std::string name = e.path().filename().string();
        if (name.starts_with(".")) continue;
        if (e.is_directory(ec)) l.dirs.push_back(name);
        else if (extension.empty() || e.path().extension() == extension) l.files.push_back(name);
    }
    std::sort(l.dirs.begin(), l.dirs.end());
    std::sort(l.files.begin(), l.files.end());
    return l;
}

}  // namespace llama::viewer
