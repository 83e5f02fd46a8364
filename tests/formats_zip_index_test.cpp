#include <catch2/catch.hpp>
#include <cstring>

#include "io/mapped_file.h"
#include "formats/meta/zip_index.h"
#include "formats_fixtures.h"

using namespace llama;
using formats_test::fixture;

namespace {

std::span<const std::byte> asBytes(const std::string& s) { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }
std::string asString(std::span<const std::byte> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

void putLE(std::string& s, size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s[at + i] = char((v >> (8 * i)) & 0xff);
}

const std::vector<std::string> kTinyNames = {"tiny/data.pkl", "tiny/data/0", "tiny/data/1", "tiny/data/2",
                                             "tiny/data/3",   "tiny/data/4", "tiny/version"};

}  // namespace

TEST_CASE("mapped file maps a file read-only, empty files included", "[formats][zip]") {
    MappedFile f(fixture("tiny.pth"));
    REQUIRE(f.size() == formats_test::readFile(fixture("tiny.pth")).size());
    REQUIRE(asString(f.bytes()) == formats_test::readFile(fixture("tiny.pth")));

    formats_test::TempFile empty("");
    MappedFile e(empty.path());
    REQUIRE(e.size() == 0);
    REQUIRE(e.bytes().empty());
    REQUIRE_THROWS_WITH(ZipIndex(e.bytes(), empty.path()), Catch::Contains("too small to be a zip"));

    REQUIRE_THROWS_WITH(MappedFile("/nonexistent/model.pth"),
                        Catch::Contains("/nonexistent/model.pth") && Catch::Contains("No such file"));
}

TEST_CASE("zip index lists torch.save's stored entries as views into the mapping", "[formats][zip]") {
    MappedFile f(fixture("tiny.pth"));
    ZipIndex zip(f.bytes(), f.path());
    REQUIRE(zip.entries().size() == kTinyNames.size());
    for (size_t i = 0; i < kTinyNames.size(); ++i) {
        const ZipEntry& e = zip.entries()[i];
        CHECK(e.name == kTinyNames[i]);
        CHECK(e.method == 0);
        std::span<const std::byte> d = zip.data(e);
        CHECK(d.data() == f.bytes().data() + e.dataOffset);  // no copy
        CHECK(d.size() == e.uncompressedSize);
        // torch pads the local header's extra field so that data is 64-byte aligned.
        CHECK(e.dataOffset % 64 == 0);
    }
    REQUIRE(asString(zip.data(*zip.find("tiny/version"))) == "3\n");
    REQUIRE(zip.find("tiny/data/9") == nullptr);
}

TEST_CASE("zip index reads ZIP64 sizes, offsets and end records", "[formats][zip]") {
    MappedFile plain(fixture("tiny.pth")), z64(fixture("tiny_zip64.pth"));
    ZipIndex a(plain.bytes(), plain.path()), b(z64.bytes(), z64.path());
    REQUIRE(b.entries().size() == a.entries().size());
    for (size_t i = 0; i < a.entries().size(); ++i) {
        const ZipEntry& e = b.entries()[i];
        CHECK(e.name == a.entries()[i].name);
        CHECK(e.uncompressedSize == a.entries()[i].uncompressedSize);
        CHECK(asString(b.data(e)) == asString(a.data(a.entries()[i])));
    }
}

TEST_CASE("zip index refuses compressed entries, naming them", "[formats][zip]") {
    MappedFile f(fixture("deflated.pth"));
    ZipIndex zip(f.bytes(), f.path());
    const ZipEntry* e = zip.find("tiny/data.pkl");
    REQUIRE(e != nullptr);
    REQUIRE(e->method == 8);
    REQUIRE_THROWS_WITH(zip.data(*e), Catch::Contains("'tiny/data.pkl' is compressed (method 8)"));
}

TEST_CASE("zip index bounds-checks every offset against the archive", "[formats][zip]") {
    const std::string tiny = formats_test::readFile(fixture("tiny.pth"));
    const size_t eocd = tiny.size() - 22;  // torch writes no archive comment

    SECTION("central directory past the end") {
        std::string s = tiny;
        putLE(s, eocd + 16, s.size() + 100, 4);
        REQUIRE_THROWS_WITH(ZipIndex(asBytes(s), "bad.pth"), Catch::Contains("bad.pth") &&
                                                                  Catch::Contains("central directory") &&
                                                                  Catch::Contains("past the end"));
    }
    SECTION("local header past the end") {
        std::string s = tiny;
        size_t cd = size_t(uint8_t(s[eocd + 16])) | size_t(uint8_t(s[eocd + 17])) << 8;
        putLE(s, cd + 42, s.size() - 10, 4);  // the first entry's local header offset
        REQUIRE_THROWS_WITH(ZipIndex(asBytes(s), "bad.pth"),
                            Catch::Contains("local header of entry 'tiny/data.pkl'") && Catch::Contains("past the end"));
    }
    SECTION("entry data past the end") {
        std::string s = tiny;
        size_t cd = size_t(uint8_t(s[eocd + 16])) | size_t(uint8_t(s[eocd + 17])) << 8;
        putLE(s, cd + 20, 1u << 30, 4);  // the first entry's compressed size
        REQUIRE_THROWS_WITH(ZipIndex(asBytes(s), "bad.pth"),
                            Catch::Contains("data of entry 'tiny/data.pkl'") && Catch::Contains("past the end"));
    }
    SECTION("more entries than the central directory can hold") {
        std::string s = tiny;
        putLE(s, eocd + 10, 0xfffe, 2);
        REQUIRE_THROWS_WITH(ZipIndex(asBytes(s), "bad.pth"), Catch::Contains("65534 entries cannot fit"));
    }
    SECTION("truncated archive") {
        REQUIRE_THROWS_WITH(ZipIndex(asBytes(tiny.substr(0, tiny.size() - 1)), "cut.pth"),
                            Catch::Contains("cut.pth") && Catch::Contains("no End Of Central Directory"));
    }
    SECTION("ZIP64 record past the end") {
        std::string s = formats_test::readFile(fixture("tiny_zip64.pth"));
        putLE(s, s.size() - 22 - 20 + 8, s.size() + 4096, 8);  // the locator's record offset
        REQUIRE_THROWS_WITH(ZipIndex(asBytes(s), "bad64.pth"),
                            Catch::Contains("ZIP64 End Of Central Directory record") && Catch::Contains("past the end"));
    }
}
