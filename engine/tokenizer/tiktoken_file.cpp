#include "tokenizer/tiktoken_file.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "io/base64.h"

namespace llama {

namespace {

// Splits on spaces and tabs like Python's str.split() (tiktoken's loader), so CRLF files work.
std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    size_t pos = 0;
    while (pos < line.size()) {
        while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r')) ++pos;
        size_t end = pos;
        while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
        if (end > pos) out.push_back(line.substr(pos, end - pos));
        pos = end;
    }
    return out;
}

}  // namespace

std::vector<std::string> readTiktokenRanks(std::istream& in, const std::string& name) {
    std::vector<std::string> tokens;
    std::unordered_map<std::string, size_t> lineOfToken;  // for "same bytes twice" errors
    std::vector<size_t> lineOfRank;
    std::string line;
    size_t lineNo = 0;
    auto fail = [&](const std::string& what) {
        throw std::runtime_error(name + ":" + std::to_string(lineNo) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++lineNo;
        const auto f = fields(line);
        if (f.empty()) continue;  // tiktoken skips blank lines too
        if (f.size() == 1) fail("missing rank after base64 token '" + std::string(f[0]) + "'");
        if (f.size() != 2) fail("expected '<base64 token> <rank>', got " + std::to_string(f.size()) + " fields");
        const auto bytes = decodeBase64(f[0]);
        if (!bytes) fail("invalid base64 token '" + std::string(f[0]) + "'");
        if (bytes->empty()) fail("empty token");
        uint64_t rank = 0;
        const auto [end, ec] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), rank);
        if (ec != std::errc() || end != f[1].data() + f[1].size())
            fail("rank '" + std::string(f[1]) + "' is not a non-negative integer");
        if (rank < tokens.size())
            fail("duplicate rank " + std::to_string(rank) + " (first on line " + std::to_string(lineOfRank[rank]) + ")");
        if (rank > tokens.size())
            fail("rank " + std::to_string(rank) + " out of order: expected " + std::to_string(tokens.size()) +
                 " (ranks must run 0..N-1 in file order)");
        const auto [it, inserted] = lineOfToken.emplace(*bytes, lineNo);
        if (!inserted) fail("token '" + std::string(f[0]) + "' already has a rank (line " + std::to_string(it->second) + ")");
        tokens.push_back(*bytes);
        lineOfRank.push_back(lineNo);
    }
    if (in.bad()) throw std::runtime_error(name + ": read error");
    if (tokens.empty()) throw std::runtime_error(name + ": no tokens (empty tiktoken file)");
    for (int b = 0; b < 256; ++b) {
        if (!lineOfToken.count(std::string(1, char(b)))) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", b);
            throw std::runtime_error(name + ": no token for byte " + hex +
                                     " (byte-level BPE needs all 256 single bytes)");
        }
    }
    return tokens;
}

void writeTiktokenRanks(std::ostream& out, const std::vector<std::string>& tokens) {
    for (size_t rank = 0; rank < tokens.size(); ++rank)
        out << encodeBase64(tokens[rank].data(), tokens[rank].size()) << ' ' << rank << '\n';
}

std::vector<std::string> loadTiktokenRanks(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open tiktoken file");
    return readTiktokenRanks(in, path);
}

}  // namespace llama
