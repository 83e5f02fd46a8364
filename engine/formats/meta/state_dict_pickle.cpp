#include "formats/meta/state_dict_pickle.h"

#include <map>
#include <stdexcept>

#include "formats/meta/pickle_opcodes.h"

namespace llama {

namespace {

using namespace pickle;

// Python's pickler memoizes every string, tuple, global and reduced object it writes, and writes
// an object it meets again (the same global, the constant 'storage' and 'cpu') as a memo get.
class Pickler {
public:
    std::string out;

    void op(Op o) { out += char(o); }
    void memoPut() { memoIndex(BINPUT, LONG_BINPUT, memoSize_++); }
    // A shared object: written (memoizing itself) the first time, a memo get after that.
    template <typename Write> void shared(const std::string& key, Write write) {
        if (const auto it = memo_.find(key); it != memo_.end()) return memoIndex(BINGET, LONG_BINGET, it->second);
        memo_[key] = memoSize_;
        write();
    }
    void string(const std::string& s) {
        op(BINUNICODE);
        le(s.size(), 4);
        out += s;
        memoPut();
    }
    void global(const std::string& module, const std::string& name) {
        shared(module + "\n" + name, [&] {
            op(GLOBAL);
            out += module + "\n" + name + "\n";
            memoPut();
        });
    }
    // Python's shortest form of a non-negative int.
    void integer(uint64_t v) {
        if (v <= 0xff) op(BININT1), le(v, 1);
        else if (v <= 0xffff) op(BININT2), le(v, 2);
        else if (v <= 0x7fffffff) op(BININT), le(v, 4);
        else {
            // Two's complement, little-endian, in as many bytes as leave the sign bit clear
            // (v is below 2^63: a tensor's element count).
            int bytes = 1;
            while (v >> (8 * bytes - 1)) ++bytes;
            op(LONG1), le(uint64_t(bytes), 1), le(v, bytes);
        }
    }
    // An int tuple: () alone is not memoized; 1 to 3 items have their own opcodes.
    void intTuple(const Dims& items) {
        if (items.size() == 0) return op(EMPTY_TUPLE);
        if (items.size() > 3) op(MARK);
        for (int64_t v : items) integer(uint64_t(v));
        op(items.size() > 3 ? TUPLE : Op(TUPLE1 + items.size() - 1));
        memoPut();
    }

private:
    void le(uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) out += char((v >> (8 * i)) & 0xff);
    }
    void memoIndex(Op shortForm, Op longForm, uint64_t index) {
        if (index <= 0xff) op(shortForm), le(index, 1);
        else op(longForm), le(index, 4);
    }

    std::map<std::string, uint64_t> memo_;
    uint64_t memoSize_ = 0;
};

const char* storageClass(const NamedTensor& t) {
    if (t.tensor.dtype() == DType::F32) return "FloatStorage";
    if (t.tensor.dtype() == DType::BF16) return "BFloat16Storage";
    throw std::invalid_argument("tensor '" + t.name + "' is " + dtypeName(t.tensor.dtype()) + ": a state dict takes F32 or BF16");
}

}  // namespace

std::string pickleStateDict(const std::vector<NamedTensor>& tensors) {
    Pickler p;
    p.op(PROTO), p.out += char(2);
    p.op(EMPTY_DICT), p.memoPut();
    // Python sets a dict's items in batches of 1000; a batch of one with SETITEM.
    constexpr size_t kBatch = 1000;
    for (size_t first = 0; first < tensors.size(); first += kBatch) {
        const size_t n = std::min(kBatch, tensors.size() - first);
        if (n > 1) p.op(MARK);
        for (size_t i = first; i < first + n; ++i) {
            const NamedTensor& t = tensors[i];
            const char* storage = storageClass(t);
            p.string(t.name);
            p.global("torch._utils", "_rebuild_tensor_v2");
            p.op(MARK);
            p.op(MARK);  // the persistent id
            p.shared("'storage'", [&] { p.string("storage"); });
            p.global("torch", storage);
            p.string(std::to_string(i));
            p.shared("'cpu'", [&] { p.string("cpu"); });
            p.integer(uint64_t(t.tensor.numel()));
            p.op(TUPLE), p.memoPut();
            p.op(BINPERSID);
            p.integer(0);  // storage offset
            p.intTuple(t.tensor.shape());
            p.intTuple(rowMajorStrides(t.tensor.shape()));
            p.op(NEWFALSE);  // requires_grad
            p.global("collections", "OrderedDict");  // backward hooks: none
            p.op(EMPTY_TUPLE), p.op(REDUCE), p.memoPut();
            p.op(TUPLE), p.memoPut();
            p.op(REDUCE), p.memoPut();
        }
        p.op(n > 1 ? SETITEMS : SETITEM);
    }
    p.op(STOP);
    return p.out;
}

}  // namespace llama
