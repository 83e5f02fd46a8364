#pragma once
// llama.cpp's control-vector files (its cvector-generator writes them, --control-vector reads them):
// a GGUF file with general.architecture "controlvector", controlvector.model_hint (the model's
// architecture, "llama") and controlvector.layer_count, and one F32 tensor of `dim` floats per
// steered layer named direction.N, N counted from 1 (model/steering.h says which layer that is).
// Read strictly: a direction that is not F32 and one-dimensional, of another length than the
// others, with a NaN, an infinity or a value past 1e6 (also once scaled and summed), a gap in the numbering or a layer count that disagrees is
// refused, naming the file and the tensor.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/steering.h"

namespace llama {

// The directions by N (direction.N); throws std::runtime_error naming the file.
std::map<int, std::vector<float>> readControlVectorFile(const std::string& path);
// The files read, scaled and summed, kept to the layer range; throws std::runtime_error naming the
// file (or --control-vector-layers) when one cannot be used.
std::shared_ptr<const Steering> loadSteering(const std::vector<ControlVectorFile>& files, std::optional<std::pair<int, int>> layers);
// Writes directions (by N, from 1) in llama.cpp's layout; throws naming the path.
void writeControlVectorFile(const std::string& path, const std::map<int, std::vector<float>>& directions, const std::string& modelHint);

}  // namespace llama
