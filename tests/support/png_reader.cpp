// libpng simplified read into RGBA, then counts.
#include "support/png_reader.h"

#include <png.h>

#include <cstdint>
#include <cstring>
#include <unordered_set>
#include <vector>

namespace swz::test {

PngStats png_stats(const std::filesystem::path& png) {
  PngStats s;
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, png.c_str())) {
    s.error = image.message;
    return s;
  }
  image.format = PNG_FORMAT_RGBA;
  std::vector<std::uint32_t> pixels(static_cast<std::size_t>(image.width) * image.height);
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    s.error = image.message;
    png_image_free(&image);
    return s;
  }
  s.ok = true;
  s.width = image.width;
  s.height = image.height;
  std::unordered_set<std::uint32_t> seen(pixels.begin(), pixels.end());
  s.distinct_colours = seen.size();
  std::size_t differ = 0;
  for (auto p : pixels) differ += p != pixels.front();
  s.non_background = pixels.empty() ? 0 : static_cast<double>(differ) / pixels.size();
  return s;
}

}  // namespace swz::test
