#pragma once
// A restricted unpickler for the data.pkl that torch.save writes into a checkpoint.
//
// Why hand-written: Python's pickle (and torch.load without weights_only) calls whatever
// global the stream names, so a checkpoint can run `posix.system`; and no C++ pickle
// reader is packaged in Debian. This one only builds the plain values below. Globals
// must be on a short allow-list (OrderedDict, tensor rebuilding, storage classes) and
// REDUCE runs our own C++ handler for each; nothing named by the stream is executed.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace llama::pickle {

struct Value;
using ValuePtr = std::shared_ptr<Value>;

struct None {};
struct Bytes {
    std::string data;
};
struct Tuple {
    std::vector<ValuePtr> items;
};
struct List {
    std::vector<ValuePtr> items;
};
// dict and OrderedDict alike: pairs in the order the stream set them. A repeated key is
// kept twice (Python would overwrite); the caller decides whether that is an error.
struct Dict {
    std::vector<std::pair<ValuePtr, ValuePtr>> items;
};
// A reference to an allowed global, e.g. {"torch", "BFloat16Storage"}.
struct Global {
    std::string module, name;
};
// torch's persistent id ('storage', <storage class>, key, location, numel): the storage's
// bytes are the archive entry data/<key>.
struct StorageRef {
    std::string storageClass;  // "FloatStorage", "BFloat16Storage" or "HalfStorage"
    std::string key;
    std::string location;  // "cpu", "cuda:0", ...
    int64_t numel = 0;
};
// What torch._utils._rebuild_tensor_v2 would build: `size` elements of the storage,
// starting at `storageOffset` (in elements), laid out with `stride`.
struct TensorRef {
    StorageRef storage;
    int64_t storageOffset = 0;
    std::vector<int64_t> size, stride;
};

struct Value {
    std::variant<None, bool, int64_t, double, std::string, Bytes, Tuple, List, Dict, Global, StorageRef, TensorRef> v;
    // "None", "bool", "int", ... for error messages.
    const char* typeName() const;
    // The reader's bookkeeping: how deeply containers nest inside this value, and whether it
    // has been placed inside another container (after which it may not change, so no value
    // can ever contain itself).
    uint32_t depth = 0;
    bool placed = false;
};

// Limits a hostile pickle meets long before memory or the stack runs out: a state dict nests
// about five containers deep and holds some ten values per tensor.
inline constexpr uint32_t kMaxNesting = 100;
inline constexpr size_t kMaxValues = 1u << 22;

// Throws std::runtime_error naming `source` and the byte offset for anything outside
// the supported subset: unknown opcodes, disallowed globals, truncation, bad arity, nesting
// deeper than kMaxNesting, more than kMaxValues values, a container changed after it was placed.
ValuePtr unpickle(std::span<const std::byte> data, const std::string& source);

}  // namespace llama::pickle
