// Decodes a PNG (libpng's simplified API) to tell a real picture from a blank one.
#pragma once

#include <filesystem>
#include <string>

namespace swz::test {

struct PngStats {
  bool ok = false;
  std::string error;
  unsigned width = 0, height = 0;
  std::size_t distinct_colours = 0;   // distinct RGBA values over all pixels
  double non_background = 0;          // share of pixels differing from the top-left pixel
};

PngStats png_stats(const std::filesystem::path& png);

}  // namespace swz::test
