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

OpenChoice resolveOpenPath(const std::string& name, const std::string& listedDir) {
    namespace fs = std::filesystem;
    const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : fs::path(listedDir) / name;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return {{}, p.string() + ": no such file"};
    const std::string rel = fs::relative(p, fs::current_path(), ec).string();
    return {ec || rel.empty() ? p.string() : rel, {}};
}

const DirListing& OpenDialogState::listing(const std::string& extension) {
    if (listed_ != dir) listing_ = listDirectory(dir, extension), listed_ = dir = listing_.dir;
    return listing_;
}

}  // namespace llama::viewer
