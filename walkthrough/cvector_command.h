#pragma once
// `llama-walkthrough cvector --positive FILE --negative FILE --out FILE`: a control vector made
// from two prompt files (steer/control_vector_maker.h), written in llama.cpp's GGUF layout for
// --control-vector here and in llama.cpp, with a table of each layer's direction norm beside the
// residual stream's.
#include <CLI/CLI.hpp>

#include <string>

namespace llama::cli {

struct CvectorOptions {
    std::string model;  // set to the bundled model by main
    std::string positive, negative, out;
    bool unit = false;
    std::string method = "mean";  // or "pca"
};

CLI::App* addCvectorCommand(CLI::App& app, CvectorOptions& options);
int runCvector(const CvectorOptions& options);

}  // namespace llama::cli
