// A whole consolidated.00.pth: zip index, data.pkl and the tensors it points to.
#include "formats/meta/torch_checkpoint.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] { llama::TorchCheckpoint::load(llama::fuzz::asFile(data, size, "consolidated.00.pth")); });
}
