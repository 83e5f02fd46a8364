// The GGUF reader: every metadata value type read back as written, and hostile files
// (truncated, wrong magic/version, absurd counts and lengths, offsets and sizes that do not
// fit, unsupported tensor types) refused with messages naming the problem.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_writer.h"
#include "formats_fixtures.h"

using namespace llama;
using formats_test::TempFile;

namespace {

// A hand-built GGUF file, field by field, so a test can break exactly one field.
struct Builder {
    std::string b;
    template <class T> size_t put(T v) {
        size_t at = b.size();
        b.append(reinterpret_cast<const char*>(&v), sizeof v);
        return at;
    }
    size_t putString(const std::string& s) {
        size_t at = put<uint64_t>(s.size());
        b += s;
        return at;
    }
    template <class T> void set(size_t at, T v) { std::memcpy(b.data() + at, &v, sizeof v); }
};

// Offsets of the fields the tests break.
struct Layout {
    size_t version, tensorCount, kvCount, keyLength, tensorType, tensorNe0, tensorOffset;
};

// One string metadata entry and one F32 tensor [2, 8] (ne = {8, 2}), 64 bytes of data.
std::string minimalFile(Layout& l) {
    Builder w;
    w.b = "GGUF";
    l.version = w.put<uint32_t>(3);
    l.tensorCount = w.put<uint64_t>(1);
    l.kvCount = w.put<uint64_t>(1);
    l.keyLength = w.putString("general.architecture");
    w.put<uint32_t>(uint32_t(GgufType::String));
    w.putString("llama");
    w.putString("t");
    w.put<uint32_t>(2);
    l.tensorNe0 = w.put<uint64_t>(8);
    w.put<uint64_t>(2);
    l.tensorType = w.put<uint32_t>(0);
    l.tensorOffset = w.put<uint64_t>(0);
    w.b.resize((w.b.size() + 31) / 32 * 32, '\0');
    w.b += std::string(64, '\0');
    return w.b;
}

std::string openError(const std::string& contents) {
    TempFile f(contents);
    try {
        GgufFile::open(f.path());
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("GGUF reader reads a minimal file", "[gguf][formats]") {
    Layout l;
    TempFile f(minimalFile(l));
    GgufFile g = GgufFile::open(f.path());
    CHECK(g.version() == 3);
    REQUIRE(g.find("general.architecture"));
    CHECK(g.find("general.architecture")->text == "llama");
    REQUIRE(g.tensors().size() == 1);
    CHECK(g.tensors()[0].shape == Shape{2, 8});  // ne {8, 2} reversed to PyTorch's order
    CHECK(g.tensor(g.tensors()[0]).floatAt(15) == 0.0f);
}

TEST_CASE("GGUF metadata of every type, nested arrays included, reads back as written", "[gguf][formats]") {
    GgufWriter w;
    auto scalar = [](GgufType t, int64_t i, double r = 0) {
        GgufValue v;
        v.type = t;
        v.integer = i;
        v.uinteger = uint64_t(i);
        v.real = r;
        return v;
    };
    w.add("u8", scalar(GgufType::U8, 200));
    w.add("i8", scalar(GgufType::I8, -100));
    w.add("u16", scalar(GgufType::U16, 60000));
    w.add("i16", scalar(GgufType::I16, -30000));
    w.add("u32", GgufValue::ofU32(4000000000u));
    w.add("i32", GgufValue::ofI32(-2000000000));
    w.add("f32", GgufValue::ofF32(0.25f));
    w.add("bool", scalar(GgufType::Bool, 1));
    w.add("string", GgufValue::ofString("h\xC3\xA9llo"));
    GgufValue u64 = scalar(GgufType::U64, 0);
    u64.uinteger = 18000000000000000000ull;
    w.add("u64", u64);
    w.add("i64", scalar(GgufType::I64, -9000000000000000000ll));
    w.add("f64", scalar(GgufType::F64, 0, 1e-300));
    GgufValue nested;
    nested.type = GgufType::Array;
    nested.elementType = GgufType::Array;
    nested.items = {GgufValue::ofStrings({"a", "", "c"}), GgufValue::ofI32s({}), GgufValue::ofF32s({1.5f})};
    w.add("nested", nested);
    TempFile f("");
    w.write(f.path());
    GgufFile g = GgufFile::open(f.path());
    REQUIRE(g.metadata().size() == 13);
    CHECK(g.find("u8")->integer == 200);
    CHECK(g.find("i8")->integer == -100);
    CHECK(g.find("u16")->integer == 60000);
    CHECK(g.find("i16")->integer == -30000);
    CHECK(g.find("u32")->integer == 4000000000ll);
    CHECK(g.find("i32")->integer == -2000000000);
    CHECK(g.find("f32")->real == 0.25);
    CHECK(g.find("bool")->integer == 1);
    CHECK(g.find("string")->text == "h\xC3\xA9llo");
    CHECK(g.find("u64")->uinteger == 18000000000000000000ull);
    CHECK(g.find("i64")->integer == -9000000000000000000ll);
    CHECK(g.find("f64")->real == 1e-300);
    const GgufValue& n = *g.find("nested");
    REQUIRE(n.items.size() == 3);
    CHECK(n.items[0].items[2].text == "c");
    CHECK(n.items[1].items.empty());
    CHECK(n.items[1].elementType == GgufType::I32);
    CHECK(n.items[2].items[0].real == 1.5);
}

TEST_CASE("GGUF reader refuses hostile files with clear messages", "[gguf][formats]") {
    Layout l;
    const std::string good = minimalFile(l);
    auto broken = [&](auto change) {
        Builder w{good};
        change(w);
        return openError(w.b);
    };
    using Catch::Matchers::Contains;

    SECTION("truncated anywhere") {
        for (size_t cut : {size_t(0), size_t(3), size_t(10), l.keyLength + 5, l.tensorNe0 + 4, good.size() - 1}) {
            INFO("cut at " << cut);
            std::string e = openError(good.substr(0, cut));
            CHECK((e.find("truncated") != std::string::npos || e.find("past the end") != std::string::npos ||
                   e.find("cannot fit") != std::string::npos));
        }
    }
    SECTION("bad magic") { CHECK_THAT(openError("GGML" + good.substr(4)), Contains("not a GGUF file")); }
    SECTION("version 1") {
        CHECK_THAT(broken([&](Builder& w) { w.set<uint32_t>(l.version, 1); }), Contains("GGUF version 1 is not supported"));
    }
    SECTION("absurd tensor count") {
        std::string e = broken([&](Builder& w) { w.set<uint64_t>(l.tensorCount, uint64_t(1) << 60); });
        CHECK_THAT(e, Contains("tensor count") && Contains("cannot fit"));
        CHECK_THAT(e, Contains("GGUF offset 8"));
    }
    SECTION("tensor count that fits the file but no real model") {
        Builder w{good};
        w.set<uint64_t>(l.tensorCount, (uint64_t(1) << 20) + 1);
        w.b += std::string(size_t(24) << 21, '\0');  // enough bytes that the count alone could fit
        CHECK_THAT(openError(w.b), Contains("tensor count") && Contains("exceeds the limit"));
    }
    SECTION("array longer than any real vocabulary") {
        Builder w;
        w.b = "GGUF";
        w.put<uint32_t>(3);
        w.put<uint64_t>(0);
        w.put<uint64_t>(1);
        w.putString("huge");
        w.put<uint32_t>(uint32_t(GgufType::Array));
        w.put<uint32_t>(uint32_t(GgufType::U8));
        const size_t n = (size_t(1) << 22) + 1;  // present in full: only the cap refuses it
        w.put<uint64_t>(n);
        w.b += std::string(n, '\0');
        CHECK_THAT(openError(w.b), Contains("metadata 'huge'") && Contains("array items"));
    }
    SECTION("string length past the end") {
        CHECK_THAT(broken([&](Builder& w) { w.set<uint64_t>(l.keyLength, 1000); }),
                   Contains("metadata[0] key") && Contains("length 1000"));
        CHECK_THAT(broken([&](Builder& w) { w.set<uint64_t>(l.keyLength, 500); }), Contains("runs past the end"));
    }
    SECTION("tensor offset past the end") {
        CHECK_THAT(broken([&](Builder& w) { w.set<uint64_t>(l.tensorOffset, 4096); }),
                   Contains("tensor 't'") && Contains("runs past the end of the file"));
    }
    SECTION("unaligned tensor offset") {
        CHECK_THAT(broken([&](Builder& w) { w.set<uint64_t>(l.tensorOffset, 4); }), Contains("not a multiple of the alignment"));
    }
    SECTION("unsupported tensor type is named") {
        CHECK_THAT(broken([&](Builder& w) { w.set<uint32_t>(l.tensorType, 3); }),
                   Contains("tensor 't'") && Contains("Q4_1 (3) is not supported"));
        CHECK_THAT(broken([&](Builder& w) { w.set<uint32_t>(l.tensorType, 999); }), Contains("unknown type 999"));
    }
    SECTION("shape larger than the bytes present") {
        // [2, 16] F32 needs 128 bytes, the file has 64 after the data offset.
        CHECK_THAT(broken([&](Builder& w) { w.set<uint64_t>(l.tensorNe0, 16); }),
                   Contains("tensor 't' (F32 [2 16], 128 bytes)") && Contains("runs past the end"));
    }
    SECTION("quantized rows that are not whole blocks") {
        // Q8_0 (type 8) with 8 elements per row: blocks hold 32.
        CHECK_THAT(broken([&](Builder& w) { w.set<uint32_t>(l.tensorType, 8); }), Contains("not a multiple of Q8_0's block size 32"));
    }
    SECTION("absurd dimension") {
        CHECK_THAT(broken([&](Builder& w) { w.set<uint64_t>(l.tensorNe0, uint64_t(1) << 62); }), Contains("tensor 't' ne"));
    }
}

TEST_CASE("GGUF reader refuses a metadata key that appears twice", "[gguf][formats][hostile]") {
    // A second llama.rope.freq_base would silently win or lose, depending on the reader.
    Builder w;
    w.b = "GGUF";
    w.put<uint32_t>(3);
    w.put<uint64_t>(0);
    w.put<uint64_t>(2);
    size_t second = 0;
    for (int i = 0; i < 2; ++i) {
        size_t at = w.putString("llama.rope.freq_base");
        if (i == 1) second = at;
        w.put<uint32_t>(uint32_t(GgufType::F32));
        w.put<float>(i ? 10000.0f : 500000.0f);
    }
    const std::string e = openError(w.b);
    CHECK_THAT(e, Catch::Contains("'llama.rope.freq_base' appears twice") && Catch::Contains("offset " + std::to_string(second)));
}
