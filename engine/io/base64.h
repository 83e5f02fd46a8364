#pragma once
// Standard base64 (RFC 4648, with '=' padding): tiktoken's vocabulary files hold tokens in it, and
// the run page embeds its float arrays in it.
// Hand-written: none of the project's Debian libraries offers base64, and it is a few lines.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace llama {

std::string encodeBase64(const void* data, size_t n);
// nullopt if malformed (a length not a multiple of 4, a character outside the alphabet, data
// after padding).
std::optional<std::string> decodeBase64(std::string_view text);

}  // namespace llama
