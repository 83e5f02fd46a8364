#pragma once
// The bundled model (assets/model), loaded once per test process and shared by its tests.
#include <string>

#include "session/model_source.h"

inline const llama::Model& bundledModel() {
    static const llama::Model model = llama::loadModel(std::string(ASSETS_DIR) + "/model");
    return model;
}
