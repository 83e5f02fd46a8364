#include "state/tensor_export.h"

#include <fmt/format.h>

#include <stdexcept>

#include "io/atomic_output.h"

namespace llama::viewer {

// Both exports go through AtomicOutputFile: a failed write never leaves half a file.
void writeCsv(const std::string& path, const Slice2D& s) {
    checkOutputPath("export-csv", path, {});
    AtomicOutputFile file(path);
    std::ofstream& out = file.stream();
    for (int64_t r = 0; r < s.rows; ++r) {
        for (int64_t c = 0; c < s.cols; ++c) out << (c ? "," : "") << fmt::format("{}", s.at(r, c));
        out << '\n';
    }
    file.commit();
}

void writeNpy(const std::string& path, const Tensor& t) {
    if (!t.hasData()) throw std::invalid_argument("the tensor has no data to export");
    checkOutputPath("export-npy", path, {});
    std::string shape;
    for (int64_t d : t.shape()) shape += fmt::format("{}, ", d);
    if (t.rank() > 1) shape.resize(shape.size() - 2);  // "(3,)" keeps its comma, "(2, 3)" does not end with one
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}", shape);
    // Format 1.0: magic, version, a little-endian u16 header length; data starts at a multiple of 64.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    AtomicOutputFile file(path);
    std::ofstream& out = file.stream();
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = uint16_t(header.size());
    out.put(char(len & 0xff)).put(char(len >> 8));
    out << header;
    for (int64_t i = 0; i < t.numel(); ++i) {
        float v = t.floatAt(i);
        out.write(reinterpret_cast<const char*>(&v), 4);
    }
    file.commit();
}

}  // namespace llama::viewer
