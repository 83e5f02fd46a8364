#include "formats/gguf/gguf_value.h"

namespace llama {

const char* ggufTypeName(GgufType t) {
    switch (t) {
        case GgufType::U8: return "uint8";
        case GgufType::I8: return "int8";
        case GgufType::U16: return "uint16";
        case GgufType::I16: return "int16";
        case GgufType::U32: return "uint32";
        case GgufType::I32: return "int32";
        case GgufType::F32: return "float32";
        case GgufType::Bool: return "bool";
        case GgufType::String: return "string";
        case GgufType::Array: return "array";
        case GgufType::U64: return "uint64";
        case GgufType::I64: return "int64";
        case GgufType::F64: return "float64";
    }
    return "?";
}

bool GgufValue::isInteger() const {
    switch (type) {
        case GgufType::U8: case GgufType::I8: case GgufType::U16: case GgufType::I16:
        case GgufType::U32: case GgufType::I32: case GgufType::U64: case GgufType::I64: return true;
        default: return false;
    }
}

GgufValue GgufValue::ofString(std::string s) {
    GgufValue v;
    v.type = GgufType::String;
    v.text = std::move(s);
    return v;
}

GgufValue GgufValue::ofBool(bool x) {
    GgufValue v = ofU32(x);  // 0 or 1, written as one byte
    v.type = GgufType::Bool;
    return v;
}

GgufValue GgufValue::ofU32(uint32_t x) {
    GgufValue v;
    v.type = GgufType::U32;
    v.integer = x;
    v.uinteger = x;
    return v;
}

GgufValue GgufValue::ofI32(int32_t x) {
    GgufValue v;
    v.type = GgufType::I32;
    v.integer = x;
    v.uinteger = uint64_t(int64_t(x));
    return v;
}

GgufValue GgufValue::ofF32(float x) {
    GgufValue v;
    v.type = GgufType::F32;
    v.real = x;
    return v;
}

namespace {
template <class T, class Make>
GgufValue arrayOf(GgufType elementType, const std::vector<T>& xs, Make make) {
    GgufValue v;
    v.type = GgufType::Array;
    v.elementType = elementType;
    v.items.reserve(xs.size());
    for (const T& x : xs) v.items.push_back(make(x));
    return v;
}
}  // namespace

GgufValue GgufValue::ofStrings(const std::vector<std::string>& xs) { return arrayOf(GgufType::String, xs, ofString); }
GgufValue GgufValue::ofI32s(const std::vector<int32_t>& xs) { return arrayOf(GgufType::I32, xs, ofI32); }
GgufValue GgufValue::ofF32s(const std::vector<float>& xs) { return arrayOf(GgufType::F32, xs, ofF32); }

}  // namespace llama
