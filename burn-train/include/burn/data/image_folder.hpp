// An image-folder classification dataset (Burn's ImageFolderDataset::new_classification): root/<class>/<image>,
// classes = the subfolder names sorted, label = the class's index; items sorted by class, then file name.
// Images are decoded when read (stb_image: PNG, JPEG, BMP, GIF, TGA, PNM), so the folder need not fit
// in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "burn/data/dataset.hpp"
#include "burn/data/export.hpp"

namespace burn::data {

// An image: row-major height x width x channels, 8 bits per channel.
struct Image {
  uint32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
  uint8_t at(uint32_t row, uint32_t col, uint32_t ch) const {
    return pixels[(size_t(row) * width + col) * channels + ch];
  }
};

// Decodes an image file; `channels` 0 keeps the file's, 1-4 converts (1 grey, 3 RGB, 4 RGBA). DataError
// naming the file when it cannot be read or decoded.
BURN_DATA_API Image load_image(const std::string& path, int channels = 0);
// Writes `image` as a PNG (for tests and tools).
BURN_DATA_API void save_png(const std::string& path, const Image& image);

struct ImageFolderItem {
  Image image;
  size_t label = 0;
  std::string path;
};

struct ImageFolderOptions {
  int channels = 0;  // as load_image
  // File extensions taken (lower case, with the dot); others are skipped.
  std::vector<std::string> extensions = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tga", ".pgm", ".ppm"};
};

class BURN_DATA_API ImageFolderDataset : public Dataset<ImageFolderItem> {
 public:
  // DataError when `root` is not a folder or holds no class folder.
  explicit ImageFolderDataset(const std::string& root, ImageFolderOptions options = {});
  // Throws DataError naming the file and the item index when the image cannot be decoded.
  std::optional<ImageFolderItem> get(size_t index) const override;
  size_t size() const override { return files_.size(); }
  const std::vector<std::string>& classes() const { return classes_; }
  const std::string& path(size_t index) const { return files_.at(index); }
  size_t label(size_t index) const { return labels_.at(index); }

 private:
  ImageFolderOptions options_;
  std::vector<std::string> classes_, files_;
  std::vector<size_t> labels_;
};

}  // namespace burn::data
