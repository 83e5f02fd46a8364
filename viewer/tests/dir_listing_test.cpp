// The File > Open dialog's listing: folders first, then only the wanted files, hidden ones left
// out, and a clear error for a path that is not a folder.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "state/dir_listing.h"

using namespace llama::viewer;
namespace fs = std::filesystem;

TEST_CASE("the open dialog lists folders and .trace files, sorted, and names a bad folder") {
    fs::path dir = fs::temp_directory_path() / "llama-viewer-dir-listing-test";
    fs::remove_all(dir);
    fs::create_directories(dir / "runs");
    fs::create_directories(dir / ".hidden");
    for (const char* name : {"b.trace", "a.trace", "notes.txt", ".c.trace"}) std::ofstream(dir / name) << "x";
    DirListing l = listDirectory(dir.string(), ".trace");
    CHECK(l.error.empty());
    CHECK(l.dirs == std::vector<std::string>{"runs"});
    CHECK(l.files == std::vector<std::string>{"a.trace", "b.trace"});
    DirListing bad = listDirectory((dir / "a.trace").string(), ".trace");
    CHECK(bad.error == (dir / "a.trace").string() + ": not a directory");
    CHECK(bad.files.empty());
    fs::remove_all(dir);
}

TEST_CASE("the open dialog opens a name relative to the listed folder, or says there is no such file") {
    fs::path dir = fs::temp_directory_path() / "llama-viewer-open-path-test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "run.trace") << "x";
    const OpenChoice picked = resolveOpenPath("run.trace", dir.string());
    CHECK(picked.error.empty());
    CHECK(fs::equivalent(picked.path, dir / "run.trace"));
    const OpenChoice absolute = resolveOpenPath((dir / "run.trace").string(), "/");
    CHECK(absolute.error.empty());
    CHECK(fs::equivalent(absolute.path, dir / "run.trace"));
    CHECK(resolveOpenPath("missing.trace", dir.string()).error == (dir / "missing.trace").string() + ": no such file");
    CHECK_FALSE(resolveOpenPath("", dir.string()).error.empty());  // the folder itself is not a file to open
    fs::remove_all(dir);
}
