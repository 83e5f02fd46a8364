#pragma once
// The trace file's framing, shared by the recorder and the reader (docs/trace-format.md):
//   "LLMTRACE" (8 bytes) · version (u32 LE) · records...
//   record = kind (4 ASCII bytes) · JSON length (u32 LE) · data length (u64 LE) · JSON · data
// Kinds: META (first: model and settings), STAG (one per stage event), END (last: the result).
// Tensor values live in a record's data part, described by its JSON.
#include <bit>
#include <cstdint>
#include <string_view>

namespace llama::trace {

static_assert(std::endian::native == std::endian::little, "trace files are little-endian; this build writes them raw");

inline constexpr std::string_view kMagic = "LLMTRACE";
// 2: META has "whatIf"; residual-stream values and the logit lens ("lens") in stage records.
inline constexpr uint32_t kVersion = 2;
inline constexpr size_t kRecordHeaderBytes = 4 + 4 + 8;

inline constexpr std::string_view kMetaRecord = "META";
inline constexpr std::string_view kStageRecord = "STAG";
inline constexpr std::string_view kEndRecord = "END ";

}  // namespace llama::trace
