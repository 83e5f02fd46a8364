#pragma once
// One GGUF metadata value: a scalar, a string or an array (of any of these, arrays included).
// Type ids are the file's (gguf.md: GGUF_TYPE_UINT8 = 0 ... GGUF_TYPE_FLOAT64 = 12).
#include <cstdint>
#include <string>
#include <vector>

namespace llama {

enum class GgufType : uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
    String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};

const char* ggufTypeName(GgufType t);

struct GgufValue {
    GgufType type = GgufType::U8;
    // Integers of every width and bools in `integer` (signed ones sign-extended) and in
    // `uinteger` (U64 values above INT64_MAX only fit there), floats in `real`, strings in
    // `text`, arrays in `items`.
    int64_t integer = 0;
    uint64_t uinteger = 0;
    double real = 0;
    std::string text;
    GgufType elementType = GgufType::U8;  // arrays only
    std::vector<GgufValue> items;

    bool isInteger() const;
    bool isFloat() const { return type == GgufType::F32 || type == GgufType::F64; }

    static GgufValue ofString(std::string s);
    static GgufValue ofBool(bool v);
    static GgufValue ofU32(uint32_t v);
    static GgufValue ofI32(int32_t v);
    static GgufValue ofF32(float v);
    static GgufValue ofStrings(const std::vector<std::string>& v);
    static GgufValue ofI32s(const std::vector<int32_t>& v);
    static GgufValue ofF32s(const std::vector<float>& v);
};

}  // namespace llama
