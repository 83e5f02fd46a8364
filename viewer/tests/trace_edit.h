#pragma once
// A trace's records as JSON and bytes, for tests that damage one field of a real trace and check
// what the reader, the page or the site then does (docs/trace-format.md: the framing).
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/trace_format.h"

namespace llama::test {

struct TraceRecord {
    std::string kind;
    nlohmann::json json;
    std::string data;
};

struct EditableTrace {
    std::string header;  // magic and version
    std::vector<TraceRecord> records;

    static EditableTrace read(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        REQUIRE(bytes.size() > 12);
        EditableTrace t{bytes.substr(0, 12), {}};
        for (size_t pos = 12; pos < bytes.size();) {
            uint32_t jsonBytes;
            uint64_t dataBytes;
            std::memcpy(&jsonBytes, bytes.data() + pos + 4, 4);
            std::memcpy(&dataBytes, bytes.data() + pos + 8, 8);
            t.records.push_back({bytes.substr(pos, 4), nlohmann::json::parse(bytes.substr(pos + 16, jsonBytes)),
                                 bytes.substr(pos + 16 + jsonBytes, dataBytes)});
            pos += 16 + jsonBytes + dataBytes;
        }
        return t;
    }

    void write(const std::string& path) const {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << header;
        for (const TraceRecord& r : records) {
            const std::string json = r.json.dump();
            const uint32_t jsonBytes = uint32_t(json.size());
            const uint64_t dataBytes = r.data.size();
            out << r.kind;
            out.write(reinterpret_cast<const char*>(&jsonBytes), 4);
            out.write(reinterpret_cast<const char*>(&dataBytes), 8);
            out << json << r.data;
        }
    }

    // The first stage record of `stage` (and `step`), by index into records.
    size_t find(const std::string& stage, int step = 0) const {
        for (size_t i = 0; i < records.size(); ++i)
            if (records[i].kind == "STAG" && records[i].json["stage"] == stage && records[i].json["step"] == step) return i;
        FAIL("no " << stage << " record for step " << step);
        return 0;
    }
    TraceRecord& meta() { return records.front(); }
    TraceRecord& end() { return records.back(); }
};

}  // namespace llama::test
