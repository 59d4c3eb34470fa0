// The image-folder dataset and image decoding through Debian's libstb (stb_image, stb_image_write).
#include "burn/data/image_folder.hpp"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <filesystem>

#include "io.hpp"

namespace fs = std::filesystem;

namespace burn::data {

Image load_image(const std::string& path, int channels) {
  const char* op = "data::load_image";
  if (channels < 0 || channels > 4) throw DataError(op, "channels must be 0..4, got " + std::to_string(channels));
  std::vector<uint8_t> bytes = detail::read_file(path, op);
  if (bytes.size() > size_t(INT32_MAX)) throw DataError(op, detail::quoted(path) + ": file too large");
  int w = 0, h = 0, c = 0;
  // Header first: the dimensions are checked before stb allocates the pixels.
  if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c))
    throw DataError(op, detail::quoted(path) + ": cannot decode image: " + stbi_failure_reason());
  if (int64_t(w) * h > (int64_t(1) << 28))
    throw DataError(
        op, detail::quoted(path) + ": image of " + std::to_string(w) + "x" + std::to_string(h) + " is too large");
  uint8_t* px = stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c, channels);
  if (!px) throw DataError(op, detail::quoted(path) + ": cannot decode image: " + stbi_failure_reason());
  Image img;
  img.width = static_cast<uint32_t>(w);
  img.height = static_cast<uint32_t>(h);
  img.channels = static_cast<uint32_t>(channels ? channels : c);
  img.pixels.assign(px, px + size_t(w) * h * img.channels);
  stbi_image_free(px);
  return img;
}

void save_png(const std::string& path, const Image& image) {
  if (image.pixels.size() != size_t(image.width) * image.height * image.channels || image.channels < 1 ||
      image.channels > 4)
    throw DataError("data::save_png", detail::quoted(path) + ": pixels do not match " + std::to_string(image.width) +
                                          "x" + std::to_string(image.height) + "x" + std::to_string(image.channels));
  if (!stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height),
                      static_cast<int>(image.channels), image.pixels.data(),
                      static_cast<int>(image.width * image.channels)))
    throw DataError("data::save_png", detail::quoted(path) + ": cannot write");
}

ImageFolderDataset::ImageFolderDataset(const std::string& root, ImageFolderOptions options)
    : options_(std::move(options)) {
  const char* op = "data::ImageFolderDataset";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw DataError(op, detail::quoted(root) + " is not a folder");
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) classes_.push_back(e.path().filename().string());
  std::sort(classes_.begin(), classes_.end());
  if (classes_.empty()) throw DataError(op, detail::quoted(root) + " holds no class folder");
  for (size_t label = 0; label < classes_.size(); ++label) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(root) / classes_[label])) {
      if (!e.is_regular_file()) continue;
      std::string ext = e.path().extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (std::find(options_.extensions.begin(), options_.extensions.end(), ext) != options_.extensions.end())
        files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      files_.push_back(std::move(f));
      labels_.push_back(label);
    }
  }
}

std::optional<ImageFolderItem> ImageFolderDataset::get(size_t index) const {
  if (index >= files_.size()) return std::nullopt;
  try {
    return ImageFolderItem{load_image(files_[index], options_.channels), labels_[index], files_[index]};
  } catch (const DataError& e) {
    throw DataError("data::ImageFolderDataset", "item " + std::to_string(index) + " (class " +
                                                    detail::quoted(classes_[labels_[index]]) + "): " + e.what());
  }
}

}  // namespace burn::data
