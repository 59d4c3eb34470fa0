// MNIST-format IDX files (plain or gzip) and the MNIST / Fashion-MNIST dataset (Burn's MnistDataset).
// IDX: two zero bytes, a type byte (0x08 u8, 0x09 i8, 0x0C i32, 0x0D f32, 0x0E f64), the rank, then
// one big-endian u32 per dim and the values (big-endian). The header's size is checked against the
// file's (for gzip, the uncompressed size in its trailer) before anything is allocated.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burn/data/dataloader.hpp"
#include "burn/data/dataset.hpp"
#include "burn/data/export.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/tensor.hpp"

namespace burn::data {

// The array of an IDX file, plain or gzip-compressed (detected by its magic bytes), in native order.
// DataError naming the file: wrong magic, an unknown type, or a size that does not match the header.
BURN_DATA_API TensorData read_idx(const std::string& path);
// Writes `data` (u8, i8, i32, f32 or f64) as an IDX file, gzip-compressed when `gzip` (for tests and tools).
BURN_DATA_API void write_idx(const std::string& path, const TensorData& data, bool gzip);

struct MnistItem {
  static constexpr int kRows = 28, kCols = 28;
  std::array<uint8_t, kRows * kCols> image{};  // row-major [28, 28], 0..255
  uint8_t label = 0;
  uint8_t pixel(int row, int col) const { return image[row * kCols + col]; }
  // The image as floats in [0, 1] (pixel / 255), row-major [28, 28].
  BURN_DATA_API std::array<float, kRows * kCols> image_f32() const;
};

class BURN_DATA_API MnistDataset : public Dataset<MnistItem> {
 public:
  enum class Split { Train, Test };
  // An images file [n, 28, 28] u8 and a labels file [n] u8 whose labels are below `num_classes`.
  MnistDataset(const std::string& images_path, const std::string& labels_path, int num_classes = 10);
  // `dir`/{train,t10k}-{images-idx3,labels-idx1}-ubyte, with or without .gz (the .gz is tried first).
  static MnistDataset from_dir(const std::string& dir, Split split);
  static MnistDataset train(const std::string& dir = fashion_mnist_dir()) { return from_dir(dir, Split::Train); }
  static MnistDataset test(const std::string& dir = fashion_mnist_dir()) { return from_dir(dir, Split::Test); }
  // $BURN_FASHION_MNIST_DIR, else Debian's dataset-fashion-mnist: /usr/share/datasets/fashion-mnist.
  static std::string fashion_mnist_dir();
  // Fashion-MNIST's class names, index = label.
  static const std::array<const char*, 10>& fashion_mnist_classes();

  std::optional<MnistItem> get(size_t index) const override;
  size_t size() const override { return labels_.size(); }

 private:
  std::vector<uint8_t> images_, labels_;
};

// Batches of MNIST items as tensors (Burn's MnistBatcher): images f32 [B, 28, 28] as
// ((pixel / 255) - mean) / std (mean 0, std 1: plain [0, 1]), targets i64 [B].
struct MnistBatch {
  Tensor<3> images;
  Tensor<1, Int> targets;
};

class BURN_DATA_API MnistBatcher : public Batcher<MnistItem, MnistBatch> {
 public:
  explicit MnistBatcher(Device device, float mean = 0.f, float std = 1.f)
      : device_(std::move(device)), mean_(mean), std_(std) {}
  MnistBatch batch(std::vector<MnistItem> items) const override;

 private:
  Device device_;
  float mean_, std_;
};

}  // namespace burn::data
