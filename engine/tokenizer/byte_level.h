#pragma once
// GPT-2's byte-level alphabet, used by Hugging Face's tokenizer.json for byte-level BPE
// (Llama 3): every byte is spelled as one printable Unicode character, so that a vocabulary
// of arbitrary bytes can be stored as JSON strings. Printable Latin-1 bytes stand for
// themselves; the other 68 bytes map to U+0100.. in byte order (space -> "Ġ", '\n' -> "Ċ").
#include <optional>
#include <string>
#include <string_view>

namespace llama {

// Raw bytes -> their byte-level spelling (UTF-8).
std::string byteLevelEncode(std::string_view bytes);
// A byte-level spelling -> raw bytes; nullopt if a character is not in the alphabet.
std::optional<std::string> byteLevelDecode(std::string_view text);

}  // namespace llama
