#pragma once
// The loss curve of a training run as a PNG (loss.png beside loss.html): the same drawing, for a
// slide, a README or a chat, where a page does not go. Text in stb_easy_font's stroke font, the
// image encoded by stb_image_write (libstb-dev).
#include <string>
#include <vector>

#include "loss_curve_page.h"

namespace llama::cli {

// The PNG file's bytes.
std::string lossCurvePng(const std::vector<LossRecord>& records, const std::string& title);

}  // namespace llama::cli
