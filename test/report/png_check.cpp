//===- png_check.cpp - did a screenshot render the report? ----------------===//
//
//   png_check SCREENSHOT.png WIDTH HEIGHT RRGGBB...
// Passes when the PNG decodes to WIDTH x HEIGHT, at least 2% of its pixels
// are dark (text and lines were drawn), and every listed colour appears as
// an exact pixel (the centres of the roofline's points, filled with the
// report's palette, are not antialiased).
//
//===----------------------------------------------------------------------===//
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: png_check SCREENSHOT.png WIDTH HEIGHT RRGGBB...\n");
    return 2;
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, argv[1])) {
    std::printf("FAIL: cannot read %s: %s\n", argv[1], image.message);
    return 1;
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    std::printf("FAIL: cannot decode %s: %s\n", argv[1], image.message);
    return 1;
  }
  const unsigned width = unsigned(std::atoi(argv[2])), height = unsigned(std::atoi(argv[3]));
  if (image.width != width || image.height != height) {
    std::printf("FAIL: %ux%u pixels, expected %ux%u\n", image.width, image.height, width, height);
    return 1;
  }
  std::set<unsigned> colours;
  size_t dark = 0, count = size_t(width) * height;
  for (size_t i = 0; i < count; ++i) {
    const unsigned char *p = &pixels[3 * i];
    colours.insert(unsigned(p[0]) << 16 | unsigned(p[1]) << 8 | p[2]);
    dark += p[0] + p[1] + p[2] < 3 * 96;
  }
  if (dark * 50 < count) {
    std::printf("FAIL: only %zu of %zu pixels are dark: the page looks empty\n", dark, count);
    return 1;
  }
  int missing = 0;
  for (int a = 4; a < argc; ++a) {
    unsigned rgb = unsigned(std::strtoul(argv[a], nullptr, 16));
    if (!colours.count(rgb)) {
      std::printf("FAIL: no pixel of colour #%06x\n", rgb);
      ++missing;
    }
  }
  if (missing) return 1;
  std::printf("PASS: %ux%u, %zu dark pixels, %zu colours, all %d expected colours present\n", width, height, dark,
              colours.size(), argc - 4);
  return 0;
}
