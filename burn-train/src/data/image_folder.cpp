// The image-folder dataset and image decoding through Debian's libstb (stb_image, stb_image_write).
#include "burn/data/image_folder.hpp"

#include <stb_image.h>
#include <stb_image_write.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "io.hpp"

namespace fs = std::filesystem;

namespace burn::data {

namespace {

constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

std::string chunk_name(const uint8_t* p) {
  std::string name;
  for (int i = 0; i < 4; ++i) name += std::isprint(p[i]) ? char(p[i]) : '?';
  return name;
}

// What is wrong with a PNG's chunk structure: cut short (an interrupted copy) or a chunk whose CRC
// does not match; "" when the chunks are whole up to IEND or the file is not a PNG. stb_image's own
// reasons for these are terse or garbage ("outofdata", or the bytes of a cut chunk type).
std::string png_problem(const std::vector<uint8_t>& b) {
  const size_t n = b.size();
  const size_t sig = std::min<size_t>(n, sizeof kPngSignature);
  if (n == 0 || std::memcmp(b.data(), kPngSignature, sig) != 0) return "";
  if (n < sizeof kPngSignature) return "truncated PNG: " + std::to_string(n) + " bytes, not even its 8-byte signature";
  size_t at = sizeof kPngSignature;
  while (true) {
    if (at == n) return "truncated PNG: the file ends after " + std::to_string(n) + " bytes, before its IEND chunk";
    if (n - at < 8) return "truncated PNG: the file ends inside the chunk header at byte " + std::to_string(at);
    const uint64_t length = be32(&b[at]);
    const std::string name = chunk_name(&b[at + 4]);
    if (length + 12 > n - at) {
      return "truncated or damaged PNG: chunk '" + name + "' at byte " + std::to_string(at) + " needs " +
             std::to_string(length + 12) + " bytes, " + std::to_string(n - at) + " are left";
    }
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), &b[at + 4], static_cast<uInt>(length + 4));
    if (crc != be32(&b[at + 8 + length]))
      return "damaged PNG: chunk '" + name + "' at byte " + std::to_string(at) + " fails its CRC";
    at += length + 12;
    if (name == "IEND") return "";
  }
}

// stb_image's failure reason in words a user can act on.
std::string decode_problem(const std::vector<uint8_t>& bytes) {
  const std::string png = png_problem(bytes);
  if (!png.empty()) return png;
  if (bytes.empty()) return "the file is empty";
  const std::string reason = stbi_failure_reason() ? stbi_failure_reason() : "";
  if (reason == "outofdata") return "cannot decode image: the data ends early (a truncated file?)";
  if (reason == "unknown image type")
    return "cannot decode image: not a PNG, JPEG, BMP, GIF, TGA or PNM file (or its header is cut)";
  return "cannot decode image (stb_image: " + reason + ")";
}

}  // namespace

Image load_image(const std::string& path, int channels) {
  const char* op = "data::load_image";
  if (channels < 0 || channels > 4) throw DataError(op, "channels must be 0..4, got " + std::to_string(channels));
  std::vector<uint8_t> bytes = detail::read_file(path, op);
  if (bytes.size() > size_t(INT32_MAX)) throw DataError(op, detail::quoted(path) + ": file too large");
  // A PNG cut short or damaged is named as such before stb sees it.
  if (const std::string problem = png_problem(bytes); !problem.empty())
    throw DataError(op, detail::quoted(path) + ": " + problem);
  int w = 0, h = 0, c = 0;
  // Header first: the dimensions are checked before stb allocates the pixels.
  if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c))
    throw DataError(op, detail::quoted(path) + ": " + decode_problem(bytes));
  if (int64_t(w) * h > (int64_t(1) << 28))
    throw DataError(
        op, detail::quoted(path) + ": image of " + std::to_string(w) + "x" + std::to_string(h) + " is too large");
  uint8_t* px = stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &c, channels);
  if (!px) throw DataError(op, detail::quoted(path) + ": " + decode_problem(bytes));
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
    // "item 4 (class 'dog'), '<file>': <problem>": load_image's message without its "[op] ".
    std::string what = e.what();
    if (what.rfind("[" + e.op() + "] ", 0) == 0) what = what.substr(e.op().size() + 3);
    throw DataError("data::ImageFolderDataset", "item " + std::to_string(index) + " (class " +
                                                    detail::quoted(classes_[labels_[index]]) + "), " + what);
  }
}

}  // namespace burn::data
