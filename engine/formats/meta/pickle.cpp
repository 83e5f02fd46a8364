#include "formats/meta/pickle.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "formats/meta/pickle_opcodes.h"

namespace llama::pickle {

const char* Value::typeName() const {
    static constexpr std::array<const char*, std::variant_size_v<decltype(v)>> names = {
        "None", "bool", "int", "float", "str", "bytes", "tuple", "list", "dict", "global", "storage", "tensor"};
    return names[v.index()];
}

namespace {

const std::array<std::pair<const char*, const char*>, 6> kAllowedGlobals = {{
    {"collections", "OrderedDict"},
    {"torch._utils", "_rebuild_tensor_v2"},
    {"torch._utils", "_rebuild_parameter"},
    {"torch", "FloatStorage"},
    {"torch", "BFloat16Storage"},
    {"torch", "HalfStorage"},
}};


class Unpickler {
public:
    Unpickler(std::span<const std::byte> d, const std::string& source) : d_(d), source_(source) {}

    ValuePtr run() {
        while (pos_ < d_.size()) {
            opPos_ = pos_;
            uint8_t op = uint8_t(d_[pos_++]);
            if (op == STOP) return pop();
            step(op);
        }
        fail("truncated pickle: the stream ends without a STOP opcode");
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("'" + source_ + "' at offset " + std::to_string(opPos_) + ": " + what);
    }

    // Every length read from the stream is checked against the bytes left, so a hostile
    // length can never make us allocate more than the pickle's own size.
    const char* take(uint64_t n, const char* what) {
        if (n > d_.size() - pos_)
            fail("truncated pickle: " + std::string(what) + " needs " + std::to_string(n) + " bytes, only " +
                 std::to_string(d_.size() - pos_) + " left");
        const char* p = reinterpret_cast<const char*>(d_.data() + pos_);
        pos_ += n;
        return p;
    }
    uint64_t le(int n, const char* what) {
        const char* p = take(n, what);
        uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = (v << 8) | uint8_t(p[i]);
        return v;
    }
    std::string line(const char* what) {
        const void* nl = std::memchr(d_.data() + pos_, '\n', d_.size() - pos_);
        if (!nl) fail(std::string("truncated pickle: ") + what + " has no terminating newline");
        size_t n = static_cast<const std::byte*>(nl) - (d_.data() + pos_);
        std::string s(take(n, what), n);
        ++pos_;
        return s;
    }

    // Python's unpickler starts a fresh stack at each MARK; popping below it is an underflow.
    size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    ValuePtr pop() {
        if (stack_.size() <= floor()) fail("pickle stack underflow");
        ValuePtr v = std::move(stack_.back());
        stack_.pop_back();
        return v;
    }
    Value& top() {
        if (stack_.size() <= floor()) fail("pickle stack underflow");
        return *stack_.back();
    }
    template <typename T> ValuePtr make(T x) {
        if (++values_ > kMaxValues) fail("pickle has more than " + std::to_string(kMaxValues) + " values");
        auto v = std::make_shared<Value>(Value{std::move(x)});
        if (auto* t = std::get_if<Tuple>(&v->v))
            for (const ValuePtr& item : t->items) place(*v, item);
        return v;
    }
    // `child` goes into `container`: bound the nesting, and freeze the child so that no later
    // change can put a container inside itself (state dicts never change a placed container).
    void place(Value& container, const ValuePtr& child) {
        if (container.placed) fail(std::string("a ") + container.typeName() + " is changed after it was placed in another value");
        if (child.get() == &container) fail(std::string("a ") + container.typeName() + " cannot contain itself");
        if (child->depth + 1 > kMaxNesting) fail("values nest more than " + std::to_string(kMaxNesting) + " deep");
        child->placed = true;
        container.depth = std::max(container.depth, child->depth + 1);
    }
    std::vector<ValuePtr> popMark() {
        if (marks_.empty()) fail("pickle has no MARK to pop to");
        std::vector<ValuePtr> items(std::make_move_iterator(stack_.begin() + marks_.back()),
                                    std::make_move_iterator(stack_.end()));
        stack_.resize(marks_.back());
        marks_.pop_back();
        return items;
    }
    void push(ValuePtr v) { stack_.push_back(std::move(v)); }

    template <typename T> T& as(Value& v, const std::string& what) {
        if (T* p = std::get_if<T>(&v.v)) return *p;
        fail("expected " + what + " to be a " + Value{T{}}.typeName() + ", got " + v.typeName());
    }
    template <typename T> T& as(const ValuePtr& v, const std::string& what) { return as<T>(*v, what); }

    void memoPut(uint64_t index) {
        if (stack_.size() <= floor()) fail("pickle stack underflow (nothing to memoize)");
        memo_[index] = stack_.back();
    }
    void memoGet(uint64_t index) {
        auto it = memo_.find(index);
        if (it == memo_.end()) fail("pickle memo has no entry " + std::to_string(index));
        push(it->second);
    }

    // Names from the stream shown safely: a NUL or control byte would cut or garble the message.
    static std::string printable(const std::string& s) {
        std::string out;
        for (unsigned char c : s) {
            if (c >= 0x20 && c < 0x7f) out += char(c);
            else {
                char hex[8];
                std::snprintf(hex, sizeof hex, "\\x%02x", c);
                out += hex;
            }
        }
        return out;
    }

    void pushGlobal(std::string module, std::string name) {
        for (auto [m, n] : kAllowedGlobals)
            if (module == m && name == n) return push(make(Global{std::move(module), std::move(name)}));
        fail("pickle global '" + printable(module) + "." + printable(name) +
             "' is not allowed: a checkpoint may only name OrderedDict, torch's tensor rebuild "
             "functions and the Float/BFloat16/Half storage classes");
    }

    int64_t intArg(const ValuePtr& v, const std::string& what) { return as<int64_t>(v, what); }
    std::vector<int64_t> intTuple(const ValuePtr& v, const std::string& what) {
        std::vector<int64_t> out;
        for (const ValuePtr& x : as<Tuple>(v, what).items) out.push_back(intArg(x, "an element of " + what));
        return out;
    }

    // REDUCE: the callable is one of the allowed globals; each has a C++ stand-in.
    ValuePtr reduce(const Global& g, const std::vector<ValuePtr>& args) {
        auto arity = [&](size_t lo, size_t hi) {
            if (args.size() < lo || args.size() > hi)
                fail(g.module + "." + g.name + " called with " + std::to_string(args.size()) + " arguments, expected " +
                     (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)));
        };
        if (g.name == "OrderedDict") {
            arity(0, 0);
            return make(Dict{});
        }
        if (g.name == "_rebuild_tensor_v2") {
            // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
            arity(6, 7);
            TensorRef t;
            t.storage = as<StorageRef>(args[0], "the storage of _rebuild_tensor_v2");
            t.storageOffset = intArg(args[1], "the storage offset");
            t.size = intTuple(args[2], "the tensor size");
            t.stride = intTuple(args[3], "the tensor stride");
            if (t.size.size() != t.stride.size()) fail("tensor size and stride have different lengths");
            return make(std::move(t));
        }
        if (g.name == "_rebuild_parameter") {
            // (data, requires_grad, backward_hooks): an nn.Parameter is its tensor for us.
            arity(3, 3);
            as<TensorRef>(args[0], "the data of _rebuild_parameter");
            return args[0];
        }
        fail("pickle global '" + g.module + "." + g.name + "' cannot be called");
    }

    // torch's persistent_load: ('storage', <storage class>, key, location, numel).
    ValuePtr persistentLoad(const ValuePtr& pid) {
        auto& t = as<Tuple>(pid, "the persistent id");
        if (t.items.size() != 5 || as<std::string>(t.items[0], "the persistent id tag") != "storage")
            fail("expected a persistent id ('storage', class, key, location, numel)");
        auto& cls = as<Global>(t.items[1], "the storage class");
        if (cls.module != "torch" || !cls.name.ends_with("Storage"))
            fail("'" + cls.module + "." + cls.name + "' is not a storage class");
        StorageRef s{cls.name, as<std::string>(t.items[2], "the storage key"),
                     as<std::string>(t.items[3], "the storage location"), intArg(t.items[4], "the storage size")};
        if (s.numel < 0) fail("negative storage size");
        return make(std::move(s));
    }

    void step(uint8_t op) {
        switch (op) {
            case PROTO:
                if (uint64_t v = le(1, "PROTO"); v > 5) fail("unsupported pickle protocol " + std::to_string(v));
                return;
            case FRAME:  // a framing hint only; the data follows inline
                le(8, "FRAME");
                return;
            case MARK: marks_.push_back(stack_.size()); return;
            case EMPTY_TUPLE: return push(make(Tuple{}));
            case EMPTY_LIST: return push(make(List{}));
            case EMPTY_DICT: return push(make(Dict{}));
            case TUPLE: return push(make(Tuple{popMark()}));
            case TUPLE1: case TUPLE2: case TUPLE3: {
                std::vector<ValuePtr> items(op - TUPLE1 + 1);
                for (size_t i = items.size(); i-- > 0;) items[i] = pop();
                return push(make(Tuple{std::move(items)}));
            }
            case NONE: return push(make(None{}));
            case NEWTRUE: return push(make(true));
            case NEWFALSE: return push(make(false));
            case BININT: return push(make(int64_t(int32_t(le(4, "BININT")))));
            case BININT1: return push(make(int64_t(le(1, "BININT1"))));
            case BININT2: return push(make(int64_t(le(2, "BININT2"))));
            case LONG1: {
                uint64_t n = le(1, "LONG1");
                if (n > 8) fail("LONG1 integer of " + std::to_string(n) + " bytes does not fit in 64 bits");
                uint64_t v = n ? le(int(n), "LONG1") : 0;
                if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign-extend
                return push(make(int64_t(v)));
            }
            case BINFLOAT: {
                const char* p = take(8, "BINFLOAT");
                uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) bits = (bits << 8) | uint8_t(p[i]);  // big-endian
                double d;
                std::memcpy(&d, &bits, 8);
                return push(make(d));
            }
            case BINUNICODE: case SHORT_BINUNICODE: {
                uint64_t n = op == BINUNICODE ? le(4, "BINUNICODE") : le(1, "SHORT_BINUNICODE");
                return push(make(std::string(take(n, "a string"), n)));
            }
            case BINBYTES: case SHORT_BINBYTES: {
                uint64_t n = op == BINBYTES ? le(4, "BINBYTES") : le(1, "SHORT_BINBYTES");
                return push(make(Bytes{std::string(take(n, "a bytes object"), n)}));
            }
            case BINPUT: return memoPut(le(1, "BINPUT"));
            case LONG_BINPUT: return memoPut(le(4, "LONG_BINPUT"));
            case MEMOIZE: return memoPut(memo_.size());
            case BINGET: return memoGet(le(1, "BINGET"));
            case LONG_BINGET: return memoGet(le(4, "LONG_BINGET"));
            case GLOBAL: {
                std::string module = line("GLOBAL module");
                return pushGlobal(std::move(module), line("GLOBAL name"));
            }
            case STACK_GLOBAL: {
                std::string name = as<std::string>(pop(), "the STACK_GLOBAL name");
                return pushGlobal(as<std::string>(pop(), "the STACK_GLOBAL module"), std::move(name));
            }
            case REDUCE: {
                ValuePtr args = pop();
                ValuePtr callable = pop();
                return push(reduce(as<Global>(callable, "the REDUCE callable"), as<Tuple>(args, "the REDUCE arguments").items));
            }
            case BUILD: {
                // Only a state dict's OrderedDict gets BUILD: its attributes (`_metadata`,
                // module versions) arrive as a dict we do not need.
                ValuePtr state = pop();
                as<Dict>(top(), "the BUILD target");
                if (!std::holds_alternative<Dict>(state->v) && !std::holds_alternative<None>(state->v))
                    fail(std::string("expected the BUILD state to be a dict, got ") + state->typeName());
                return;
            }
            case BINPERSID: return push(persistentLoad(pop()));
            case SETITEM: {
                ValuePtr value = pop();
                ValuePtr key = pop();
                Value& target = top();
                auto& dict = as<Dict>(target, "the SETITEM target");
                place(target, key), place(target, value);
                dict.items.emplace_back(std::move(key), std::move(value));
                return;
            }
            case SETITEMS: {
                std::vector<ValuePtr> kv = popMark();
                if (kv.size() % 2) fail("SETITEMS with an odd number of items");
                Value& target = top();
                auto& dict = as<Dict>(target, "the SETITEMS target");
                for (const ValuePtr& item : kv) place(target, item);
                for (size_t i = 0; i < kv.size(); i += 2) dict.items.emplace_back(kv[i], kv[i + 1]);
                return;
            }
            case APPEND: {
                ValuePtr value = pop();
                Value& target = top();
                auto& list = as<List>(target, "the APPEND target");
                place(target, value);
                list.items.push_back(std::move(value));
                return;
            }
            case APPENDS: {
                std::vector<ValuePtr> items = popMark();
                Value& target = top();
                auto& list = as<List>(target, "the APPENDS target");
                for (const ValuePtr& item : items) place(target, item);
                list.items.insert(list.items.end(), items.begin(), items.end());
                return;
            }
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(std::string("unknown or unsupported pickle opcode ") + hex +
             (op >= 0x20 && op < 0x7f ? std::string(" ('") + char(op) + "')" : std::string()));
    }

    std::span<const std::byte> d_;
    const std::string& source_;
    size_t pos_ = 0, opPos_ = 0;
    std::vector<ValuePtr> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, ValuePtr> memo_;
    size_t values_ = 0;
};

}  // namespace

ValuePtr unpickle(std::span<const std::byte> data, const std::string& source) { return Unpickler(data, source).run(); }

}  // namespace llama::pickle
