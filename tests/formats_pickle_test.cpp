#include <catch2/catch.hpp>

#include "io/mapped_file.h"
#include "formats/meta/pickle.h"
#include "formats/meta/zip_index.h"
#include "formats_fixtures.h"

using namespace llama;
using namespace llama::pickle;
using formats_test::bytes;

namespace {

ValuePtr parse(const std::string& s) {
    return unpickle({reinterpret_cast<const std::byte*>(s.data()), s.size()}, "test.pkl");
}
template <typename T> const T& get(const ValuePtr& v) { return std::get<T>(v->v); }
const std::string& str(const ValuePtr& v) { return get<std::string>(v); }

// pickle.dumps((None, True, False, 1, -2, 300, 70000, -2**40, 1.5, "hé", b"ab", [1, 2],
//               {"a": 1, "b": 2}, OrderedDict([("x", 1)]), l, l), protocol=4) with l = [1]
const std::string kProtocol4 = bytes(
    "\x80\x04\x95\x79\x00\x00\x00\x00\x00\x00\x00\x28\x4e\x88\x89\x4b\x01\x4a\xfe\xff\xff\xff\x4d\x2c\x01\x4a\x70"
    "\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\xff\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x8c\x03\x68\xc3\xa9\x94\x43"
    "\x02\x61\x62\x94\x5d\x94\x28\x4b\x01\x4b\x02\x65\x7d\x94\x28\x8c\x01\x61\x94\x4b\x01\x8c\x01\x62\x94\x4b\x02"
    "\x75\x8c\x0b\x63\x6f\x6c\x6c\x65\x63\x74\x69\x6f\x6e\x73\x94\x8c\x0b\x4f\x72\x64\x65\x72\x65\x64\x44\x69\x63"
    "\x74\x94\x93\x94\x29\x52\x94\x8c\x01\x78\x94\x4b\x01\x73\x5d\x94\x4b\x01\x61\x68\x0b\x74\x94\x2e");

}  // namespace

TEST_CASE("unpickler reads the plain values of protocols 2 to 4", "[formats][pickle]") {
    ValuePtr root = parse(kProtocol4);
    const auto& t = get<Tuple>(root).items;
    REQUIRE(t.size() == 16);
    CHECK(std::holds_alternative<None>(t[0]->v));
    CHECK(get<bool>(t[1]) == true);
    CHECK(get<bool>(t[2]) == false);
    CHECK(get<int64_t>(t[3]) == 1);
    CHECK(get<int64_t>(t[4]) == -2);
    CHECK(get<int64_t>(t[5]) == 300);
    CHECK(get<int64_t>(t[6]) == 70000);
    CHECK(get<int64_t>(t[7]) == -(int64_t(1) << 40));
    CHECK(get<double>(t[8]) == 1.5);
    CHECK(str(t[9]) == "h\xc3\xa9");
    CHECK(get<Bytes>(t[10]).data == "ab");
    const auto& list = get<List>(t[11]).items;
    REQUIRE(list.size() == 2);
    CHECK(get<int64_t>(list[1]) == 2);
    const auto& dict = get<Dict>(t[12]).items;
    REQUIRE(dict.size() == 2);
    CHECK(str(dict[0].first) == "a");
    CHECK(str(dict[1].first) == "b");
    CHECK(get<int64_t>(dict[1].second) == 2);
    const auto& od = get<Dict>(t[13]).items;  // OrderedDict via STACK_GLOBAL + REDUCE
    REQUIRE(od.size() == 1);
    CHECK(str(od[0].first) == "x");
    CHECK(t[14] == t[15]);  // the memo shares one object, as in Python
    CHECK(std::string(t[14]->typeName()) == "list");
}

TEST_CASE("unpickler reads long-form memo and bytes opcodes", "[formats][pickle]") {
    // BINBYTES b'ab', LONG_BINPUT 256, LONG_BINGET 256, TUPLE2, STOP
    ValuePtr root = parse(bytes("B\x02\x00\x00\x00" "abr\x00\x01\x00\x00j\x00\x01\x00\x00\x86."));
    const auto& t = get<Tuple>(root).items;
    REQUIRE(t.size() == 2);
    CHECK(get<Bytes>(t[0]).data == "ab");
    CHECK(t[0] == t[1]);
}

TEST_CASE("unpickler turns torch.save's data.pkl into tensor references", "[formats][pickle]") {
    MappedFile f(formats_test::fixture("tiny.pth"));
    ZipIndex zip(f.bytes(), f.path());
    ValuePtr root = unpickle(zip.data(*zip.find("tiny/data.pkl")), "tiny.pth:tiny/data.pkl");
    const auto& items = get<Dict>(root).items;
    REQUIRE(items.size() == 5);
    const std::vector<std::string> names = {"layers.0.attention.wq.weight", "norm.weight", "scale", "offset_view",
                                            "param"};
    for (size_t i = 0; i < names.size(); ++i) CHECK(str(items[i].first) == names[i]);

    const auto& wq = get<TensorRef>(items[0].second);
    CHECK(wq.storage.storageClass == "BFloat16Storage");
    CHECK(wq.storage.key == "0");
    CHECK(wq.storage.location == "cpu");
    CHECK(wq.storage.numel == 12);
    CHECK(wq.storageOffset == 0);
    CHECK(wq.size == std::vector<int64_t>{3, 4});
    CHECK(wq.stride == std::vector<int64_t>{4, 1});

    const auto& norm = get<TensorRef>(items[1].second);
    CHECK(norm.storage.storageClass == "FloatStorage");
    CHECK(norm.size == std::vector<int64_t>{4});

    const auto& view = get<TensorRef>(items[3].second);
    CHECK(view.storage.numel == 12);
    CHECK(view.storageOffset == 4);
    CHECK(view.size == std::vector<int64_t>{4});

    const auto& param = get<TensorRef>(items[4].second);  // through _rebuild_parameter
    CHECK(param.size == std::vector<int64_t>{2});
    CHECK(param.storage.storageClass == "FloatStorage");
}

TEST_CASE("unpickler refuses globals outside the allow-list", "[formats][pickle]") {
    // What pickling os.system("echo pwned")'s __reduce__ gives at protocol 2.
    REQUIRE_THROWS_WITH(parse(bytes("\x80\x02" "cposix\nsystem\nq\x00X\n\x00\x00\x00" "echo pwnedq\x01\x85q\x02Rq\x03.")),
                        Catch::Contains("pickle global 'posix.system' is not allowed") &&
                            Catch::Contains("test.pkl") && Catch::Contains("offset 2"));
    REQUIRE_THROWS_WITH(parse("cbuiltins\neval\n."), Catch::Contains("'builtins.eval' is not allowed"));
    REQUIRE_THROWS_WITH(parse(bytes("\x8c\x05posix\x8c\x06system\x93.")),
                        Catch::Contains("'posix.system' is not allowed"));
    REQUIRE_THROWS_WITH(parse("ctorch\nIntStorage\n."), Catch::Contains("'torch.IntStorage' is not allowed"));
    // Allowed, but not something to call.
    REQUIRE_THROWS_WITH(parse("ctorch\nFloatStorage\n)R."), Catch::Contains("'torch.FloatStorage' cannot be called"));
}

TEST_CASE("unpickler refuses malformed streams with the offset", "[formats][pickle]") {
    SECTION("truncated data.pkl") {
        MappedFile f(formats_test::fixture("tiny.pth"));
        ZipIndex zip(f.bytes(), f.path());
        auto pkl = zip.data(*zip.find("tiny/data.pkl"));
        REQUIRE_THROWS_WITH(unpickle(pkl.first(pkl.size() / 2), "half.pkl"),
                            Catch::Contains("half.pkl") && Catch::Contains("truncated"));
    }
    SECTION("hostile length") {
        REQUIRE_THROWS_WITH(parse(bytes("X\xff\xff\xff\x7f" "abc")),
                            Catch::Contains("truncated") && Catch::Contains("needs 2147483647 bytes, only 3 left"));
    }
    SECTION("no STOP") { REQUIRE_THROWS_WITH(parse("N"), Catch::Contains("without a STOP")); }
    SECTION("unknown opcode") {
        REQUIRE_THROWS_WITH(parse(bytes("\x80\x02\xff.")), Catch::Contains("offset 2") && Catch::Contains("opcode 0xff"));
        REQUIRE_THROWS_WITH(parse("I12\n."), Catch::Contains("opcode 0x49 ('I')"));
    }
    SECTION("stack underflow") {
        REQUIRE_THROWS_WITH(parse(bytes("\x85.")), Catch::Contains("stack underflow"));
        REQUIRE_THROWS_WITH(parse(bytes("N(\x85.")), Catch::Contains("stack underflow"));  // not below a MARK
        REQUIRE_THROWS_WITH(parse("Nt."), Catch::Contains("no MARK"));
    }
    SECTION("memo miss") { REQUIRE_THROWS_WITH(parse("h\x05."), Catch::Contains("memo has no entry 5")); }
    SECTION("wrong arity") {
        REQUIRE_THROWS_WITH(parse("ctorch._utils\n_rebuild_tensor_v2\n)R."),
                            Catch::Contains("_rebuild_tensor_v2 called with 0 arguments, expected 6 to 7"));
        REQUIRE_THROWS_WITH(parse(bytes("ccollections\nOrderedDict\nK\x01\x85R.")),
                            Catch::Contains("called with 1 arguments, expected 0"));
    }
    SECTION("wrong types") {
        REQUIRE_THROWS_WITH(parse("K\x01Q."), Catch::Contains("expected the persistent id to be a tuple, got int"));
        REQUIRE_THROWS_WITH(parse("]}b."), Catch::Contains("expected the BUILD target to be a dict, got list"));
        REQUIRE_THROWS_WITH(parse(bytes("\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09.")),
                            Catch::Contains("does not fit in 64 bits"));
    }
}

TEST_CASE("unpickler bounds nesting: 200,000 nested tuples are refused, not a stack overflow", "[formats][pickle][hostile]") {
    // \x80\x02 ) then 200,000 TUPLE1 then STOP: ((((...(),),),...),)
    const std::string deep = bytes("\x80\x02)") + std::string(200000, '\x85') + ".";
    REQUIRE_THROWS_WITH(parse(deep), Catch::Contains("test.pkl") && Catch::Contains("nest more than 100 deep") &&
                                         Catch::Contains("at offset 103"));
    // As deep as the limit is fine.
    CHECK_NOTHROW(parse(bytes("\x80\x02)") + std::string(kMaxNesting, '\x85') + "."));
}

TEST_CASE("unpickler refuses a container that would contain itself", "[formats][pickle][hostile]") {
    // d = {}; d["x"] = d  (EMPTY_DICT, BINPUT 0, "x", BINGET 0, SETITEM)
    REQUIRE_THROWS_WITH(parse(bytes("\x80\x02}q\x00X\x01\x00\x00\x00xh\x00s.")), Catch::Contains("cannot contain itself"));
    // l = []; t = (l,); l.append(t): the list changes after it was placed in the tuple.
    REQUIRE_THROWS_WITH(parse(bytes("\x80\x02]q\x00h\x00\x85q\x01h\x00h\x01" "a.")),
                        Catch::Contains("changed after it was placed"));
}

TEST_CASE("unpickler bounds the number of values", "[formats][pickle][hostile]") {
    // A MARK, then None pushed 2^22 + 1 times.
    const std::string many = bytes("\x80\x02(") + std::string(kMaxValues + 1, 'N') + "t.";
    REQUIRE_THROWS_WITH(parse(many), Catch::Contains("more than 4194304 values"));
}
