#include <catch2/catch.hpp>

#include "formats/meta/torch_checkpoint.h"
#include "formats_fixtures.h"

using namespace llama;
using formats_test::bytes;
using formats_test::fixture;
using formats_test::patched;
using formats_test::readFile;
using formats_test::TempFile;

namespace {

bool insideMapping(const TorchCheckpoint& c, const Tensor& t) {
    auto b = c.file().bytes();
    auto p = static_cast<const std::byte*>(t.rawData());
    return p >= b.data() && p + t.byteSize() <= b.data() + b.size();
}

// Every value make_fixtures.py wrote, element by element.
void checkTiny(const TorchCheckpoint& c) {
    const std::vector<std::string> names = {"layers.0.attention.wq.weight", "norm.weight", "scale", "offset_view",
                                            "param"};
    REQUIRE(c.tensors().size() == names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        CHECK(c.tensors()[i].name == names[i]);
        CHECK(insideMapping(c, c.tensors()[i].tensor));  // a view, not a copy
    }

    const Tensor& wq = c.tensors()[0].tensor;
    REQUIRE(wq.dtype() == DType::BF16);
    REQUIRE(wq.shape() == Shape{3, 4});
    for (int i = 0; i < 12; ++i) CHECK(wq.data<BFloat16>()[i].toFloat() == (float(i) - 5) / 4);

    const Tensor& norm = c.tensors()[1].tensor;
    REQUIRE(norm.dtype() == DType::F32);
    REQUIRE(norm.shape() == Shape{4});
    for (int i = 0; i < 4; ++i) CHECK(norm.data<float>()[i] == float(i) / 3.0f);

    const Tensor& scale = c.tensors()[2].tensor;
    REQUIRE(scale.dtype() == DType::BF16);
    REQUIRE(scale.shape() == Shape{1});
    CHECK(scale.floatAt(0) == 3.140625f);

    const Tensor& view = c.tensors()[3].tensor;  // elements 4..7 of a 12-element storage
    REQUIRE(view.dtype() == DType::F32);
    REQUIRE(view.shape() == Shape{4});
    for (int i = 0; i < 4; ++i) CHECK(view.data<float>()[i] == float(i + 4));

    const Tensor& param = c.tensors()[4].tensor;
    REQUIRE(param.shape() == Shape{2});
    CHECK(param.data<float>()[0] == -1.0f);
    CHECK(param.data<float>()[1] == 2.0f);

    CHECK(c.totalBytes() == 12 * 2 + 4 * 4 + 2 + 4 * 4 + 2 * 4);
    CHECK(c.find("norm.weight") == &norm);
    CHECK(c.find("nope") == nullptr);
}

}  // namespace

TEST_CASE("torch checkpoint: every tensor is a view of the mapped file with the saved values", "[formats][torch]") {
    checkTiny(TorchCheckpoint::load(fixture("tiny.pth")));
}

TEST_CASE("torch checkpoint: ZIP64 archives load the same", "[formats][torch]") {
    checkTiny(TorchCheckpoint::load(fixture("tiny_zip64.pth")));
}

TEST_CASE("torch checkpoint: tensors keep the mapping alive and are read-only", "[formats][torch]") {
    Tensor wq;
    {
        TorchCheckpoint c = TorchCheckpoint::load(fixture("tiny.pth"));
        wq = *c.find("layers.0.attention.wq.weight");
    }
    CHECK(wq.floatAt(11) == 1.5f);
    CHECK_THROWS_WITH(wq.mutableData<BFloat16>(), Catch::Contains("read-only"));
}

TEST_CASE("torch checkpoint: prefault reports progress up to the file size", "[formats][torch]") {
    TorchCheckpoint c = TorchCheckpoint::load(fixture("tiny.pth"));
    std::vector<std::pair<size_t, size_t>> calls;
    c.prefault([&](size_t done, size_t total) { calls.emplace_back(done, total); });
    REQUIRE(!calls.empty());
    CHECK(calls.back() == std::make_pair(c.file().size(), c.file().size()));
}

TEST_CASE("torch checkpoint: refuses what the engine cannot use, naming the tensor", "[formats][torch]") {
    CHECK_THROWS_WITH(TorchCheckpoint::load(fixture("float16.pth")),
                      Catch::Contains("float16.pth") && Catch::Contains("tensor 'half' is float16"));
    CHECK_THROWS_WITH(TorchCheckpoint::load(fixture("noncontiguous.pth")),
                      Catch::Contains("tensor 'transposed' is not contiguous") && Catch::Contains("stride [1 4]"));
}

TEST_CASE("torch checkpoint: refuses hostile or damaged files", "[formats][torch]") {
    CHECK_THROWS_WITH(TorchCheckpoint::load(fixture("evil_global.pth")),
                      Catch::Contains("evil_global.pth:evil/data.pkl") &&
                          Catch::Contains("pickle global 'posix.system' is not allowed"));
    CHECK_THROWS_WITH(TorchCheckpoint::load(fixture("deflated.pth")),
                      Catch::Contains("'tiny/data.pkl' is compressed"));
    CHECK_THROWS_WITH(TorchCheckpoint::load("/nonexistent/consolidated.00.pth"),
                      Catch::Contains("/nonexistent/consolidated.00.pth") && Catch::Contains("No such file"));

    // Same-length edits of tiny.pth's data.pkl (we do not check CRCs, so the zip stays readable).
    const std::string tiny = readFile(fixture("tiny.pth"));
    // The first storage claims 13 bf16 elements; its entry holds 12.
    TempFile bigStorage(patched(tiny, bytes("cpuq\x07K\x0c"), bytes("cpuq\x07K\x0d")));
    CHECK_THROWS_WITH(TorchCheckpoint::load(bigStorage.path()),
                      Catch::Contains("storage entry 'tiny/data/0' has 24 bytes, expected 13 elements"));
    // wq claims shape [4 4]: 16 elements do not fit its 12-element storage.
    TempFile bigTensor(patched(tiny, bytes("K\x00K\x03K\x04\x86"), bytes("K\x00K\x04K\x04\x86")));
    CHECK_THROWS_WITH(TorchCheckpoint::load(bigTensor.path()),
                      Catch::Contains("tensor 'layers.0.attention.wq.weight' of shape [4 4]") &&
                          Catch::Contains("does not fit its storage of 12 elements"));
    // The data.pkl entry renamed (local and central headers): no longer a torch.save archive.
    TempFile noPickle(patched(tiny, "tiny/data.pkl", "tiny/data.pkx"));
    CHECK_THROWS_WITH(TorchCheckpoint::load(noPickle.path()), Catch::Contains("no <folder>/data.pkl entry"));
}
