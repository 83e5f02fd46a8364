#pragma once
// The zip format's record signatures and fixed sizes (PKWARE's APPNOTE), shared by the reader
// (zip_index.h) and the writer (zip_writer.h).
#include <cstddef>
#include <cstdint>

namespace llama::zip {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kDataDescriptorSig = 0x08074b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEocdSize = 22;
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kZip64EocdSize = 56;
constexpr uint16_t kZip64ExtraId = 0x0001;

}  // namespace llama::zip
