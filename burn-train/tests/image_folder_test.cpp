// ImageFolderDataset: a folder of PNGs written here (stb_image_write) read back pixel for pixel, the
// classes sorted, other files skipped, and an unreadable image reported with its file and item.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "burn/data/dataloader.hpp"
#include "burn/data/image_folder.hpp"
#include "tmp_dir.hpp"

using namespace burn::data;
using burn::data::test::error_of;
using burn::data::test::TmpDir;
using burn::data::test::write_text;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// A w x h image with `ch` channels whose value at (r, c, k) is (seed + 16 r + 4 c + k) % 256.
Image pattern(uint32_t w, uint32_t h, uint32_t ch, int seed) {
  Image img{w, h, ch, std::vector<uint8_t>(size_t(w) * h * ch)};
  for (uint32_t r = 0; r < h; ++r)
    for (uint32_t c = 0; c < w; ++c)
      for (uint32_t k = 0; k < ch; ++k)
        img.pixels[(size_t(r) * w + c) * ch + k] = uint8_t((seed + 16 * r + 4 * c + k) % 256);
  return img;
}

// root/{dog: b.png, a.png; ant: x.png; cat: c.png + notes.txt}: classes ant, cat, dog.
void make_folder(const TmpDir& dir) {
  for (const char* c : {"dog", "ant", "cat"}) std::filesystem::create_directories(dir.path / c);
  save_png(dir.file("dog/b.png"), pattern(3, 2, 3, 10));
  save_png(dir.file("dog/a.png"), pattern(4, 4, 3, 20));
  save_png(dir.file("ant/x.png"), pattern(2, 5, 1, 30));
  save_png(dir.file("cat/c.PNG"), pattern(1, 1, 4, 40));
  write_text(dir.file("cat/notes.txt"), "not an image");
}

}  // namespace

TEST(ImageFolderDataset, ClassesSortedAndPixelsExact) {
  TmpDir dir;
  make_folder(dir);
  ImageFolderDataset ds(dir.path.string());
  EXPECT_THAT(ds.classes(), ElementsAre("ant", "cat", "dog"));
  ASSERT_EQ(ds.size(), 4u);
  std::vector<size_t> labels;
  std::vector<std::string> names;
  for (size_t i = 0; i < ds.size(); ++i) {
    labels.push_back(ds.label(i));
    names.push_back(std::filesystem::path(ds.path(i)).filename().string());
  }
  EXPECT_THAT(labels, ElementsAre(0, 1, 2, 2));
  EXPECT_THAT(names, ElementsAre("x.png", "c.PNG", "a.png", "b.png"));
  ImageFolderItem b = *ds.get(3);
  EXPECT_EQ(b.label, 2u);
  EXPECT_EQ(b.image.width, 3u);
  EXPECT_EQ(b.image.height, 2u);
  EXPECT_EQ(b.image.channels, 3u);
  EXPECT_EQ(b.image.pixels, pattern(3, 2, 3, 10).pixels);
  EXPECT_EQ(b.image.at(1, 2, 1), 10 + 16 + 8 + 1);
  ImageFolderItem grey = *ds.get(0);
  EXPECT_EQ(grey.image.channels, 1u);
  EXPECT_EQ(grey.image.pixels, pattern(2, 5, 1, 30).pixels);
  EXPECT_EQ(ds.get(1)->image.pixels, std::vector<uint8_t>({40, 41, 42, 43}));
  EXPECT_EQ(ds.get(4), std::nullopt);
}

TEST(ImageFolderDataset, ConvertsChannels) {
  TmpDir dir;
  make_folder(dir);
  ImageFolderDataset rgb(dir.path.string(), {.channels = 3});
  Image grey_as_rgb = rgb.get(0)->image;
  ASSERT_EQ(grey_as_rgb.channels, 3u);
  EXPECT_THAT(std::vector<uint8_t>(grey_as_rgb.pixels.begin(), grey_as_rgb.pixels.begin() + 6),
              ElementsAre(30, 30, 30, 34, 34, 34));
  ImageFolderDataset grey(dir.path.string(), {.channels = 1});
  // stb's luma: (77 r + 150 g + 29 b) >> 8 of (10, 11, 12).
  EXPECT_EQ(grey.get(3)->image.pixels[0], (77 * 10 + 150 * 11 + 29 * 12) >> 8);
}

TEST(ImageFolderDataset, LoadsThroughTheDataLoader) {
  TmpDir dir;
  make_folder(dir);
  auto ds = std::make_shared<ImageFolderDataset>(dir.path.string());
  auto batcher =
      std::make_shared<FnBatcher<ImageFolderItem, std::vector<size_t>>>([](std::vector<ImageFolderItem> items) {
        std::vector<size_t> sizes;
        for (auto& it : items) sizes.push_back(it.image.pixels.size());
        return sizes;
      });
  DataLoader<ImageFolderItem, std::vector<size_t>> loader(ds, batcher, {.batch_size = 3, .num_workers = 2});
  auto it = loader.iter();
  EXPECT_THAT(*it.next(), ElementsAre(10u, 4u, 48u));
  EXPECT_THAT(*it.next(), ElementsAre(18u));
}

TEST(ImageFolderDataset, UnreadableImageNamesFileAndItem) {
  TmpDir dir;
  make_folder(dir);
  write_text(dir.file("dog/broken.png"), "\x89PNG\r\n\x1a\n but then garbage");
  ImageFolderDataset ds(dir.path.string());
  ASSERT_EQ(ds.size(), 5u);
  EXPECT_THAT(
      error_of([&] { ds.get(4); }),
      AllOf(HasSubstr("item 4 (class 'dog'), '"),
            HasSubstr(
                "broken.png': truncated or damaged PNG: chunk ' the' at byte 8 needs 543323520 bytes, 17 are left")));
  EXPECT_THAT(error_of([&] { ImageFolderDataset(dir.file("nope")); }), HasSubstr("nope' is not a folder"));
  EXPECT_THAT(error_of([&] { ImageFolderDataset(dir.file("ant")); }), HasSubstr("ant' holds no class folder"));
  EXPECT_THAT(error_of([&] { load_image(dir.file("missing.png")); }), HasSubstr("missing.png': cannot open"));
}

// Every cut of a PNG (an interrupted copy) is a DataError naming the item, its class, the
// file and the problem, or (a cut only through the trailing IEND chunk) the exact pixels.
TEST(ImageFolderDataset, EveryCutOfAPngNamesTheItemFileAndProblem) {
  TmpDir dir;
  std::filesystem::create_directories(dir.path / "cls");
  const Image want = pattern(7, 5, 3, 50);
  save_png(dir.file("full.png"), want);
  std::ifstream in(dir.file("full.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(bytes.size(), 40u);
  std::map<std::string, int> problems;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    write_text(dir.file("cls/img.png"), bytes.substr(0, cut));
    ImageFolderDataset ds(dir.path.string());
    ASSERT_EQ(ds.size(), 1u);
    try {
      const ImageFolderItem item = *ds.get(0);
      EXPECT_EQ(item.image.pixels, want.pixels) << "cut at " << cut << " of " << bytes.size();
    } catch (const DataError& e) {
      const std::string m = e.what();
      EXPECT_THAT(m, AllOf(HasSubstr("item 0 (class 'cls')"), HasSubstr("img.png'"))) << "cut at " << cut;
      ++problems[m.substr(m.find("img.png'"))];
    }
  }
  // Cut inside the signature, at a chunk boundary, inside a chunk: each named for what it is.
  EXPECT_EQ(problems["img.png': truncated PNG: 5 bytes, not even its 8-byte signature"], 1);
  EXPECT_EQ(problems["img.png': truncated PNG: the file ends after 33 bytes, before its IEND chunk"], 1);
  EXPECT_EQ(problems["img.png': the file is empty"], 1);
  int inside = 0;
  for (const auto& [p, n] : problems) {
    EXPECT_THAT(p, ::testing::AnyOf(HasSubstr(": truncated PNG: "), HasSubstr(": truncated or damaged PNG: chunk '"),
                                    HasSubstr(": the file is empty")));
    inside += p.find("truncated or damaged PNG: chunk 'IDAT' at byte 33 needs") != std::string::npos ? n : 0;
  }
  EXPECT_GT(inside, 0);
  // A flipped bit inside the image data: the chunk's CRC names it.
  std::string flipped = bytes;
  flipped[45] = static_cast<char>(flipped[45] ^ 0x10);
  write_text(dir.file("cls/img.png"), flipped);
  EXPECT_THAT(error_of([&] { ImageFolderDataset(dir.path.string()).get(0); }),
              AllOf(HasSubstr("item 0 (class 'cls'), '"),
                    HasSubstr("img.png': damaged PNG: chunk 'IDAT' at byte 33 fails its CRC")));
}
