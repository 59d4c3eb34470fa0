// IDX files (plain or gzip, through zlib's gzread, which reads both) and the MNIST dataset.
#include "burn/data/mnist.hpp"

#include <zlib.h>

#include <sys/stat.h>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io.hpp"

namespace burn::data {
namespace {

constexpr const char* kMnistOp = "data::read_idx";

struct IdxType {
  uint8_t code;
  DType dtype;
  size_t size;
};
constexpr IdxType kTypes[] = {
    {0x08, DType::U8, 1}, {0x09, DType::I8, 1}, {0x0C, DType::I32, 4}, {0x0D, DType::F32, 4}, {0x0E, DType::F64, 8}};

// Closes the gzFile on every path out.
struct GzFile {
  gzFile f = nullptr;
  ~GzFile() {
    if (f) gzclose(f);
  }
};

// The bytes a reader will get from `path`: the file size, or for gzip the size in the trailer (the
// uncompressed size mod 2^32, RFC 1952), so that the header can be checked before allocating.
struct SizeHint {
  uint64_t bytes;
  bool gzip;
  uint64_t file_bytes;
};
SizeHint size_hint(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw DataError(kMnistOp, detail::quoted(path) + ": cannot open: " + std::strerror(errno));
  uint8_t magic[2] = {0, 0};
  size_t got = std::fread(magic, 1, 2, f);
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  SizeHint hint{static_cast<uint64_t>(size), got == 2 && magic[0] == 0x1f && magic[1] == 0x8b,
                static_cast<uint64_t>(size)};
  if (hint.gzip) {
    uint8_t t[4] = {0, 0, 0, 0};
    if (size < 18 || std::fseek(f, -4, SEEK_END) != 0 || std::fread(t, 1, 4, f) != 4) {
      std::fclose(f);
      throw DataError(kMnistOp, detail::quoted(path) + ": truncated gzip file (" + std::to_string(size) + " bytes)");
    }
    hint.bytes = uint64_t(t[0]) | uint64_t(t[1]) << 8 | uint64_t(t[2]) << 16 | uint64_t(t[3]) << 24;
  }
  std::fclose(f);
  return hint;
}

void read_exact(gzFile f, void* dst, size_t n, const std::string& path, const char* what) {
  auto* p = static_cast<uint8_t*>(dst);
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    int got = gzread(f, p, chunk);
    if (got <= 0) {
      int err = Z_OK;
      const char* msg = gzerror(f, &err);
      throw DataError(kMnistOp, detail::quoted(path) + ": truncated " + what +
                                    (err != Z_OK && msg && *msg ? std::string(" (") + msg + ")" : std::string()));
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
}

void byteswap(uint8_t* p, size_t count, size_t size) {
  if (size == 1) return;
  for (size_t i = 0; i < count; ++i, p += size) std::reverse(p, p + size);
}

std::string existing(const std::string& base) {
  if (std::filesystem::exists(base + ".gz")) return base + ".gz";
  return base;
}

}  // namespace

TensorData read_idx(const std::string& path) {
  SizeHint hint = size_hint(path);
  GzFile gz;
  gz.f = gzopen(path.c_str(), "rb");
  if (!gz.f) throw DataError(kMnistOp, detail::quoted(path) + ": cannot open");
  gzbuffer(gz.f, 1 << 17);
  uint8_t head[4];
  read_exact(gz.f, head, 4, path, "header");
  const IdxType* type = nullptr;
  for (const auto& t : kTypes)
    if (t.code == head[2]) type = &t;
  if (head[0] != 0 || head[1] != 0 || !type || head[3] == 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%02x %02x %02x %02x", head[0], head[1], head[2], head[3]);
    throw DataError(kMnistOp, detail::quoted(path) + ": not an IDX file: magic bytes " + buf +
                                  " (expected 00 00, a type 08/09/0c/0d/0e and a rank >= 1)");
  }
  size_t rank = head[3];
  std::vector<uint8_t> dims_be(4 * rank);
  read_exact(gz.f, dims_be.data(), dims_be.size(), path, "header");
  std::vector<int64_t> dims(rank);
  // The element count as a Shape counts it (zero dims as 1) must fit int64: a forged header of
  // [0, 2^32-1, 2^32-1, 2^32-1] holds no data yet would be a ShapeError out of TensorData.
  uint64_t elements = 1;
  bool empty = false, too_many = false;
  for (size_t i = 0; i < rank; ++i) {
    const uint8_t* d = &dims_be[4 * i];
    dims[i] = int64_t(uint32_t(d[0]) << 24 | uint32_t(d[1]) << 16 | uint32_t(d[2]) << 8 | d[3]);
    empty = empty || dims[i] == 0;
    if (dims[i] != 0 && !too_many)
      too_many = __builtin_mul_overflow(elements, static_cast<uint64_t>(dims[i]), &elements) || elements > INT64_MAX;
  }
  auto shape_text = [&] {
    std::string shape;
    for (size_t i = 0; i < rank; ++i) shape += (i ? ", " : "") + std::to_string(dims[i]);
    return "[" + shape + "]";
  };
  if (too_many)
    throw DataError(kMnistOp, detail::quoted(path) + ": header says " + shape_text() +
                                  ": its dims multiply past 2^63 elements, more than any tensor holds");
  const unsigned __int128 payload = empty ? 0 : (unsigned __int128)elements * type->size;
  const uint64_t header = 4 + 4 * rank;
  // The file must hold exactly header + payload bytes; for gzip compared mod 2^32, as the trailer,
  // and within deflate's largest ratio (1032:1), so a forged header cannot make us allocate terabytes.
  bool fits = hint.gzip ? uint32_t(header + uint64_t(payload)) == uint32_t(hint.bytes) &&
                              payload <= (unsigned __int128)hint.file_bytes * 1032
                        : header + payload == hint.bytes;
  if (!fits) {
    std::string head_says = detail::quoted(path) + ": header says " + shape_text() + " (" +
                            std::to_string(uint64_t(payload)) + " bytes of data, " +
                            std::to_string(header + uint64_t(payload)) + " in all)";
    if (hint.gzip)
      throw DataError(kMnistOp, head_says + " but the gzip trailer gives " + std::to_string(hint.bytes) +
                                    " bytes: the file is truncated, damaged or not one gzip stream");
    throw DataError(kMnistOp, head_says + " but the file has " + std::to_string(hint.bytes) + " bytes" +
                                  (header + payload > hint.bytes ? ": truncated" : ": trailing bytes"));
  }
  TensorData data = TensorData::uninitialized(Shape(dims), type->dtype);
  read_exact(gz.f, data.raw(), static_cast<size_t>(payload), path, "data");
  uint8_t extra;
  if (gzread(gz.f, &extra, 1) > 0) throw DataError(kMnistOp, detail::quoted(path) + ": trailing bytes after the data");
  byteswap(static_cast<uint8_t*>(data.raw()), static_cast<size_t>(payload) / type->size, type->size);
  return data;
}

void write_idx(const std::string& path, const TensorData& data, bool gzip) {
  const IdxType* type = nullptr;
  for (const auto& t : kTypes)
    if (t.dtype == data.dtype()) type = &t;
  if (!type) throw DataError("data::write_idx", detail::quoted(path) + ": IDX has no type for this dtype");
  std::vector<uint8_t> out = {0, 0, type->code, static_cast<uint8_t>(data.shape().rank())};
  for (int64_t d : data.shape()) {
    auto v = static_cast<uint32_t>(d);
    out.insert(out.end(), {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)});
  }
  size_t header = out.size();
  out.insert(out.end(), data.bytes().begin(), data.bytes().end());
  byteswap(out.data() + header, data.bytes().size() / type->size, type->size);
  GzFile gz;
  gz.f = gzopen(path.c_str(), gzip ? "wb6" : "wbT");  // T: transparent, no compression
  if (!gz.f) throw DataError("data::write_idx", detail::quoted(path) + ": cannot create");
  if (gzwrite(gz.f, out.data(), static_cast<unsigned>(out.size())) != static_cast<int>(out.size()))
    throw DataError("data::write_idx", detail::quoted(path) + ": write failed");
  int rc = gzclose(gz.f);
  gz.f = nullptr;
  if (rc != Z_OK) throw DataError("data::write_idx", detail::quoted(path) + ": write failed");
}

std::array<float, MnistItem::kRows * MnistItem::kCols> MnistItem::image_f32() const {
  std::array<float, kRows * kCols> out;
  for (size_t i = 0; i < out.size(); ++i) out[i] = image[i] / 255.0f;
  return out;
}

MnistDataset::MnistDataset(const std::string& images_path, const std::string& labels_path, int num_classes) {
  const char* op = "data::MnistDataset";
  TensorData images = read_idx(images_path), labels = read_idx(labels_path);
  const Shape& is = images.shape();
  if (images.dtype() != DType::U8 || is.rank() != 3 || is[1] != MnistItem::kRows || is[2] != MnistItem::kCols)
    throw DataError(op, detail::quoted(images_path) + ": expected u8 images [n, 28, 28], got " +
                            std::string(dtype_name(images.dtype())) + " " + is.to_string());
  if (labels.dtype() != DType::U8 || labels.shape().rank() != 1)
    throw DataError(op, detail::quoted(labels_path) + ": expected u8 labels [n], got " +
                            std::string(dtype_name(labels.dtype())) + " " + labels.shape().to_string());
  if (labels.shape()[0] != is[0])
    throw DataError(op, detail::quoted(images_path) + " has " + std::to_string(is[0]) + " images but " +
                            detail::quoted(labels_path) + " has " + std::to_string(labels.shape()[0]) + " labels");
  const auto& lb = labels.bytes();
  for (size_t i = 0; i < lb.size(); ++i) {
    if (lb[i] >= num_classes)
      throw DataError(op, detail::quoted(labels_path) + ": item " + std::to_string(i) + " has label " +
                              std::to_string(lb[i]) + ", out of range for " + std::to_string(num_classes) + " classes");
  }
  images_.assign(images.bytes().begin(), images.bytes().end());
  labels_.assign(lb.begin(), lb.end());
}

MnistDataset MnistDataset::from_dir(const std::string& dir, Split split) {
  std::string prefix = dir + "/" + (split == Split::Train ? "train" : "t10k");
  return MnistDataset(existing(prefix + "-images-idx3-ubyte"), existing(prefix + "-labels-idx1-ubyte"));
}

std::string MnistDataset::fashion_mnist_dir() {
  const char* env = std::getenv("BURN_FASHION_MNIST_DIR");
  return env && *env ? env : "/usr/share/datasets/fashion-mnist";
}

const std::array<const char*, 10>& MnistDataset::fashion_mnist_classes() {
  static const std::array<const char*, 10> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return names;
}

std::optional<MnistItem> MnistDataset::get(size_t index) const {
  if (index >= labels_.size()) return std::nullopt;
  MnistItem item;
  std::memcpy(item.image.data(), images_.data() + index * item.image.size(), item.image.size());
  item.label = labels_[index];
  return item;
}

MnistBatch MnistBatcher::batch(std::vector<MnistItem> items) const {
  const auto n = static_cast<int64_t>(items.size());
  constexpr int64_t px = MnistItem::kRows * MnistItem::kCols;
  TensorData images = TensorData::uninitialized(Shape{n, MnistItem::kRows, MnistItem::kCols}, DType::F32);
  TensorData targets = TensorData::uninitialized(Shape{n}, DType::I64);
  auto* img = static_cast<float*>(images.raw());
  auto* tgt = static_cast<int64_t*>(targets.raw());
  const float scale = 1.0f / (255.0f * std_), shift = mean_ / std_;
  for (int64_t i = 0; i < n; ++i) {
    const auto& it = items[static_cast<size_t>(i)];
    for (int64_t p = 0; p < px; ++p) img[i * px + p] = it.image[static_cast<size_t>(p)] * scale - shift;
    tgt[i] = it.label;
  }
  return {Tensor<3>::from_data(images, device_), Tensor<1, Int>::from_data(targets, device_)};
}

}  // namespace burn::data
