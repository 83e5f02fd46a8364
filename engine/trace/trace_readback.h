#pragma once
// Every trace the program writes must read back (docs/hostile-input.md, round 5): the writers run
// the reader of the kind they wrote on the finished bytes before the file is moved into place.
// The readers' checks are so the one definition of a valid trace: a writer that breaks it fails
// the run with the reader's message, instead of leaving a file (exit 0) that every reader refuses.
#include <functional>
#include <string>
#include <string_view>

namespace llama {

// `read` (readTraceBytes, readPatchTraceBytes) on `bytes`, named `path`; what it refuses is
// thrown as std::runtime_error naming `path`, the record and what was expected.
void requireReadsBack(std::string_view bytes, const std::string& path, const std::function<void(std::string_view, const std::string&)>& read);

// A run's trace, just written at `written` (its temporary name), read back as `path`.
void requireTraceReadsBack(const std::string& written, const std::string& path);

}  // namespace llama
