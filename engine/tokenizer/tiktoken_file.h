#pragma once
// Reading and writing tiktoken's vocabulary format (Llama 3's tokenizer.model): one line per token,
// "<base64 of the token's raw bytes> <rank>", ranks 0..N-1 in file order. The rank is
// both the token id and the merge priority (lower merges first).
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace llama {

// Token bytes indexed by rank. Throws std::runtime_error "NAME:LINE: what is wrong"
// (or "NAME: ..." for whole-file problems) on anything malformed: bad base64, missing or
// non-numeric rank, ranks out of order or repeated, the same bytes twice, a single byte
// with no token (byte-level BPE must be able to fall back to any byte).
std::vector<std::string> readTiktokenRanks(std::istream& in, const std::string& name);
std::vector<std::string> loadTiktokenRanks(const std::string& path);

// Writes `tokens` (bytes indexed by rank) as readTiktokenRanks reads them and tiktoken's Python
// writes them: "<base64> <rank>\n" per token, in rank order.
void writeTiktokenRanks(std::ostream& out, const std::vector<std::string>& tokens);

}  // namespace llama
