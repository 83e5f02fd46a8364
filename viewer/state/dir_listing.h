#pragma once
// What the File > Open dialog lists: a directory's subdirectories, then its files with a
// wanted extension, each sorted by name; errors (no such directory, no permission) as text.
#include <string>
#include <vector>

namespace llama::viewer {

struct DirListing {
    std::string dir;  // as given, made absolute and normal
    std::vector<std::string> dirs, files;
    std::string error;
};

DirListing listDirectory(const std::string& dir, const std::string& extension);

}  // namespace llama::viewer
