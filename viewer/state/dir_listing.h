#pragma once
// The File > Open dialog without a window: what it lists (a directory's subdirectories, then its
// files with a wanted extension, each sorted by name; errors such as no such directory or no
// permission as text), and which file a typed or picked name opens.
#include <string>
#include <vector>

namespace llama::viewer {

struct DirListing {
    std::string dir;  // as given, made absolute and normal
    std::vector<std::string> dirs, files;
    std::string error;
};

DirListing listDirectory(const std::string& dir, const std::string& extension);

// The file a name typed or picked in the dialog opens: relative to the listed folder unless
// absolute, and given relative to the working directory where it can be (as the command line
// would name it). `error` says why not ("...: no such file").
struct OpenChoice {
    std::string path, error;
};
OpenChoice resolveOpenPath(const std::string& name, const std::string& listedDir);

// What the dialog keeps between frames: which trace it opens, the folder, the name typed, the
// last error, and the folder's listing (read again only when the folder changes).
struct OpenDialogState {
    enum class What { None, Trace, Compare } what = What::None;
    std::string dir = ".", name, error;
    const DirListing& listing(const std::string& extension);

private:
    DirListing listing_;
    std::string listed_;
};

}  // namespace llama::viewer
