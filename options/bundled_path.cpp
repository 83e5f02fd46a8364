#include "bundled_path.h"

#include <filesystem>
#include <system_error>

namespace llama::options {

std::string bundledPath(const std::string& relative) {
    namespace fs = std::filesystem;
    std::error_code error;
    // /proc/self/exe: Linux's link to the running program (elsewhere, only the working folder).
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    if (!error)
        for (fs::path dir = program.parent_path(); !dir.empty(); dir = dir.parent_path()) {
            if (fs::exists(dir / relative, error)) return (dir / relative).string();
            if (dir == dir.parent_path()) break;  // the root
        }
    return relative;
}

}  // namespace llama::options
