// Files held in memory by a front end (io/memory_files.h: the browser build reads a reader's model
// into the module's heap once): MappedFile serves their bytes in place of the file's, by any
// spelling of the path, and keeps them alive after they are released for as long as it lives.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/mapped_file.h"
#include "io/memory_files.h"
#include "session/session.h"
#include "test_files.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {
const std::string kBundled = std::string(ASSETS_DIR) + "/model";

// A block of memory holding `text`, freed by the last shared_ptr of it; `freed` says when.
MemoryFile held(const std::string& text, bool& freed) {
    auto* block = new std::byte[text.size()];
    std::memcpy(block, text.data(), text.size());
    return {std::shared_ptr<const std::byte>(block, [&freed](const std::byte* p) { delete[] p; freed = true; }), text.size()};
}
}  // namespace

TEST_CASE("memory files: a held file is served in place, by any spelling of its path, until released", "[io][loader]") {
    const fs::path dir = fs::temp_directory_path() / "memory-files-test";
    fs::create_directories(dir);
    const std::string onDisk = (dir / "f.bin").string();
    std::ofstream(onDisk) << "the file on disk";
    bool freed = false;
    {
        MemoryFile file = held("the bytes in memory", freed);
        const std::byte* block = file.bytes.get();
        holdFileInMemory(onDisk, std::move(file));
        const MappedFile viaOtherSpelling((dir / "." / "f.bin").string());
        CHECK(viaOtherSpelling.bytes().data() == block);  // no copy
        CHECK(std::string(reinterpret_cast<const char*>(viaOtherSpelling.bytes().data()), viaOtherSpelling.size()) == "the bytes in memory");
        releaseFileInMemory(onDisk);
        CHECK_FALSE(freed);  // still mapped
        CHECK(std::memcmp(viaOtherSpelling.bytes().data(), "the bytes", 9) == 0);
        const MappedFile fromDisk(onDisk);
        CHECK(std::string(reinterpret_cast<const char*>(fromDisk.bytes().data()), fromDisk.size()) == "the file on disk");
    }
    CHECK(freed);
    CHECK_FALSE(fileInMemory(onDisk));
    fs::remove_all(dir);
}

TEST_CASE("memory files: the bundled model loads from weights held in memory, not from the file under their name", "[io][loader]") {
    // On disk the weights are zeros of the right size; the real ones are held in memory.
    const fs::path dir = fs::temp_directory_path() / "memory-files-model";
    fs::create_directories(dir);
    for (const char* name : {"params.json", "tokenizer.model"}) fs::copy_file(fs::path(kBundled) / name, dir / name, fs::copy_options::overwrite_existing);
    const std::string weights = readFile(fs::path(kBundled) / "consolidated.00.pth");
    std::ofstream(dir / "consolidated.00.pth", std::ios::binary) << std::string(weights.size(), '\0');
    bool freed = false;
    holdFileInMemory((dir / "consolidated.00.pth").string(), held(weights, freed));

    auto greedy = [](const std::string& model) {
        Session s;
        s.load({ModelSource::Kind::Files, model});
        s.settings().prompt = "In the beginning";
        s.settings().maxTokens = 4;
        return s.run().generatedTokens;
    };
    CHECK(greedy(dir.string()) == greedy(kBundled));
    releaseFileInMemory((dir / "consolidated.00.pth").string());
    CHECK(freed);  // the session that used them is gone
    REQUIRE_THROWS(greedy(dir.string()));  // the zeros on disk are no model
    fs::remove_all(dir);
}
