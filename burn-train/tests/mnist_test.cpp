// IDX files and MnistDataset: small files written here (plain and gzip) read back exactly, corrupt
// files rejected with the file and item named, Debian's Fashion-MNIST when installed, MnistBatcher.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "burn/data/mnist.hpp"
#include "tmp_dir.hpp"

using namespace burn;
using namespace burn::data;
using burn::data::test::error_of;
using burn::data::test::TmpDir;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// n images whose pixel (r, c) of image i is (i * 31 + r * 3 + c) % 256, labels (i * 7) % 10.
void write_mnist(const TmpDir& dir, const std::string& prefix, int n, bool gzip) {
  std::vector<uint8_t> px(size_t(n) * 784), lb(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    lb[size_t(i)] = uint8_t(i * 7 % 10);
    for (int r = 0; r < 28; ++r)
      for (int c = 0; c < 28; ++c) px[size_t(i) * 784 + r * 28 + c] = uint8_t((i * 31 + r * 3 + c) % 256);
  }
  std::string ext = gzip ? ".gz" : "";
  write_idx(dir.file(prefix + "-images-idx3-ubyte" + ext), TensorData::from_vector(px, Shape{n, 28, 28}), gzip);
  write_idx(dir.file(prefix + "-labels-idx1-ubyte" + ext), TensorData::from_vector(lb, Shape{n}), gzip);
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

}  // namespace

TEST(Idx, PlainFileLayoutIsBigEndian) {
  TmpDir dir;
  write_idx(dir.file("a.idx"), TensorData::from_vector(std::vector<int32_t>{1, -2, 258}, Shape{3}), false);
  // 00 00 0c 01, dim 3, then big-endian i32 values: the layout of the MNIST files, written by hand.
  EXPECT_THAT(bytes_of(dir.file("a.idx")),
              ElementsAre(0, 0, 0x0C, 1, 0, 0, 0, 3, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFE, 0, 0, 1, 2));
  TensorData back = read_idx(dir.file("a.idx"));
  EXPECT_EQ(back.shape(), Shape({3}));
  EXPECT_THAT(back.to_vec<int32_t>(), ElementsAre(1, -2, 258));
  write_idx(dir.file("f.idx.gz"), TensorData::from_vector(std::vector<float>{1.5f, -0.25f, 3, 4}, Shape{2, 2}), true);
  EXPECT_EQ(bytes_of(dir.file("f.idx.gz"))[0], 0x1F);  // really gzip
  TensorData f = read_idx(dir.file("f.idx.gz"));
  EXPECT_EQ(f.shape(), Shape({2, 2}));
  EXPECT_THAT(f.to_vec<float>(), ElementsAre(1.5f, -0.25f, 3.f, 4.f));
}

TEST(MnistDataset, ReadsPlainAndGzipFiles) {
  for (bool gzip : {false, true}) {
    TmpDir dir;
    write_mnist(dir, "train", 5, gzip);
    MnistDataset ds = MnistDataset::from_dir(dir.path.string(), MnistDataset::Split::Train);
    ASSERT_EQ(ds.size(), 5u);
    MnistItem it = *ds.get(3);
    EXPECT_EQ(it.label, 1);  // 21 % 10
    EXPECT_EQ(it.pixel(0, 0), 93);
    EXPECT_EQ(it.pixel(27, 27), (93 + 81 + 27) % 256);
    EXPECT_FLOAT_EQ(it.image_f32()[0], 93 / 255.f);
    EXPECT_EQ(ds.get(5), std::nullopt);
    std::vector<int> labels;
    for (const auto& item : ds) labels.push_back(item.label);
    EXPECT_THAT(labels, ElementsAre(0, 7, 4, 1, 8));
  }
}

TEST(MnistDataset, CorruptFilesNameTheFileAndItem) {
  TmpDir dir;
  write_mnist(dir, "train", 4, false);
  std::string images = dir.file("train-images-idx3-ubyte"), labels = dir.file("train-labels-idx1-ubyte");
  std::vector<uint8_t> img = bytes_of(images), lb = bytes_of(labels);

  write_bytes(dir.file("trunc"), std::vector<uint8_t>(img.begin(), img.end() - 100));
  EXPECT_THAT(error_of([&] { MnistDataset(dir.file("trunc"), labels); }),
              AllOf(HasSubstr("trunc'"),
                    HasSubstr("header says [4, 28, 28] (3136 bytes of data, 3152 in all) but the file has 3052 bytes"),
                    HasSubstr("truncated")));

  auto bad_magic = img;
  bad_magic[2] = 0x07;
  write_bytes(dir.file("magic"), bad_magic);
  EXPECT_THAT(error_of([&] { MnistDataset(dir.file("magic"), labels); }),
              AllOf(HasSubstr("magic'"), HasSubstr("not an IDX file: magic bytes 00 00 07 03")));

  auto bad_label = lb;
  bad_label[8 + 2] = 12;
  write_bytes(dir.file("labels12"), bad_label);
  EXPECT_THAT(error_of([&] { MnistDataset(images, dir.file("labels12")); }),
              AllOf(HasSubstr("labels12'"), HasSubstr("item 2 has label 12, out of range for 10 classes")));

  // A header claiming 2^31 images in a small file is refused before anything is allocated.
  auto huge = img;
  huge[4] = 0x80;
  write_bytes(dir.file("huge"), huge);
  EXPECT_THAT(error_of([&] { read_idx(dir.file("huge")); }), HasSubstr("header says [2147483652, 28, 28]"));

  // Dims whose product (zero dims counted as 1, as Shape counts them) passes 2^63: a data error about
  // the file, not a ShapeError out of TensorData, even with a zero dim and no data.
  const std::vector<uint8_t> forged = {0,    0,    0x08, 4,    0,    0,    0,    0,    0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  write_bytes(dir.file("forged"), forged);
  EXPECT_THAT(error_of([&] { read_idx(dir.file("forged")); }),
              AllOf(HasSubstr("forged'"), HasSubstr("header says [0, 4294967295, 4294967295, 4294967295]"),
                    HasSubstr("multiply past 2^63 elements")));
  EXPECT_THROW(read_idx(dir.file("forged")), DataError);
  std::vector<uint8_t> wide = {0, 0, 0x0E, 5};
  for (int i = 0; i < 20; ++i) wide.push_back(0xff);
  write_bytes(dir.file("wide"), wide);
  EXPECT_THAT(error_of([&] { read_idx(dir.file("wide")); }), HasSubstr("multiply past 2^63 elements"));
  // An empty array with a zero dim and small others is still fine.
  write_bytes(dir.file("empty"), std::vector<uint8_t>{0, 0, 0x08, 2, 0, 0, 0, 0, 0, 0, 0, 28});
  EXPECT_EQ(read_idx(dir.file("empty")).shape(), Shape({0, 28}));

  write_mnist(dir, "five", 5, false);
  EXPECT_THAT(error_of([&] { MnistDataset(dir.file("five-images-idx3-ubyte"), labels); }),
              HasSubstr("has 5 images but"));
  EXPECT_THAT(error_of([&] { MnistDataset(labels, labels); }), HasSubstr("expected u8 images [n, 28, 28], got u8 [4]"));
  EXPECT_THAT(error_of([&] { read_idx(dir.file("missing")); }), AllOf(HasSubstr("missing'"), HasSubstr("cannot open")));
}

TEST(MnistDataset, CorruptGzipIsReported) {
  TmpDir dir;
  write_mnist(dir, "train", 4, true);
  std::string images = dir.file("train-images-idx3-ubyte.gz");
  std::vector<uint8_t> gz = bytes_of(images);
  // Cut in the middle of the deflate stream: the trailer's size is gone with it, and what remains
  // cannot hold the header's images.
  write_bytes(dir.file("cut.gz"), std::vector<uint8_t>(gz.begin(), gz.begin() + std::ptrdiff_t(gz.size() / 2)));
  std::string msg = error_of([&] { read_idx(dir.file("cut.gz")); });
  EXPECT_THAT(msg, HasSubstr("cut.gz'"));
  EXPECT_THAT(msg, ::testing::AnyOf(HasSubstr("truncated"), HasSubstr("gzip trailer gives")));
  // Deflate data damaged but the trailer intact: the header is fine, the data is not.
  auto damaged = gz;
  for (size_t i = 40; i < damaged.size() - 8; ++i) damaged[i] ^= 0x5A;
  write_bytes(dir.file("damaged.gz"), damaged);
  EXPECT_THAT(error_of([&] { read_idx(dir.file("damaged.gz")); }), HasSubstr("damaged.gz'"));
}

TEST(MnistDataset, FashionMnistFromDebian) {
  std::string dir = MnistDataset::fashion_mnist_dir();
  if (!std::filesystem::exists(dir + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist not installed";
  MnistDataset train = MnistDataset::train(), test = MnistDataset::test();
  ASSERT_EQ(train.size(), 60000u);
  ASSERT_EQ(test.size(), 10000u);
  // Values read with Python's gzip + numpy from the same files.
  std::vector<int> first;
  for (size_t i = 0; i < 6; ++i) first.push_back(train.get(i)->label);
  EXPECT_THAT(first, ElementsAre(9, 0, 0, 3, 0, 2));
  MnistItem t0 = *train.get(0);
  EXPECT_EQ(std::accumulate(t0.image.begin(), t0.image.end(), 0), 76247);
  EXPECT_EQ(t0.pixel(14, 14), 217);
  EXPECT_EQ(t0.pixel(10, 13), 193);
  EXPECT_EQ(t0.pixel(10, 26), 202);
  MnistItem last = *test.get(9999);
  EXPECT_EQ(last.label, 5);
  EXPECT_EQ(std::accumulate(last.image.begin(), last.image.end(), 0), 24390);
  EXPECT_EQ(test.get(1)->label, 2);
  EXPECT_STREQ(MnistDataset::fashion_mnist_classes()[9], "Ankle boot");
  std::vector<int> counts(10);
  for (size_t i = 0; i < test.size(); ++i) ++counts[test.get(i)->label];
  EXPECT_EQ(counts, std::vector<int>(10, 1000));
}

TEST(MnistBatcher, MakesNormalisedImageAndTargetTensors) {
  TmpDir dir;
  write_mnist(dir, "t10k", 3, true);
  auto ds = std::make_shared<MnistDataset>(MnistDataset::from_dir(dir.path.string(), MnistDataset::Split::Test));
  auto batcher = std::make_shared<MnistBatcher>(Device::get("cpu"), 0.5f, 0.25f);
  DataLoader<MnistItem, MnistBatch> loader(ds, batcher, {.batch_size = 2, .num_workers = 2});
  auto it = loader.iter();
  MnistBatch b = *it.next();
  EXPECT_EQ(b.images.shape(), Shape({2, 28, 28}));
  EXPECT_THAT(b.targets.to_vec<int64_t>(), ElementsAre(0, 7));
  std::vector<float> px = b.images.to_vec<float>();
  // Image 1, pixel (0, 1) is 32: (32/255 - 0.5) / 0.25.
  EXPECT_NEAR(px[784 + 1], (32 / 255.f - 0.5f) / 0.25f, 1e-6);
  EXPECT_NEAR(px[0], -2.f, 1e-6);
  MnistBatch last = *it.next();
  EXPECT_EQ(last.images.shape(), Shape({1, 28, 28}));
  EXPECT_THAT(last.targets.to_vec<int64_t>(), ElementsAre(4));
  EXPECT_FALSE(it.next());
}
