// SqliteDataset and SqliteDatasetWriter: items written and read back exactly (also by several loader
// workers), transactions (an unfinished write leaves nothing), appends, and the errors of a missing
// table and of a damaged blob.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sqlite3.h>

#include "burn/data/dataloader.hpp"
#include "burn/data/sqlite.hpp"
#include "tmp_dir.hpp"

using namespace burn;
using namespace burn::data;
using burn::data::test::error_of;
using burn::data::test::TmpDir;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// Item i: image u8 [2, 3] = i*10 + 0..5, label i64 [1] = i % 3, weight f32 [] scalar-like [1] = i / 2.
TensorItem item(int i) {
  std::vector<uint8_t> px(6);
  for (int k = 0; k < 6; ++k) px[size_t(k)] = uint8_t(i * 10 + k);
  TensorItem it;
  it.add("image", TensorData::from_vector(px, Shape{2, 3}))
      .add("label", TensorData::from_vector(std::vector<int64_t>{i % 3}, Shape{1}))
      .add("weight", TensorData::from_vector(std::vector<float>{i / 2.f}, Shape{1}));
  return it;
}

void write_items(const std::string& path, const std::string& split, int n) {
  SqliteDatasetWriter w(path, split);
  for (int i = 0; i < n; ++i) EXPECT_EQ(w.write(item(i)), size_t(i));
  w.finish();
}

}  // namespace

TEST(TensorItem, EncodingIsTheDocumentedLayout) {
  TensorItem it;
  it.add("x", TensorData::from_vector(std::vector<int32_t>{258}, Shape{1}));
  EXPECT_THAT(it.encode(), ElementsAre('B', 'D', 'I', '1', 1, 0, 0, 0, 1, 0, 'x', uint8_t(DType::I32), 1, 1, 0, 0, 0, 0,
                                       0, 0, 0, 2, 1, 0, 0));
  TensorItem back = TensorItem::decode(it.encode().data(), it.encode().size(), "here");
  EXPECT_THAT(back.at("x").to_vec<int32_t>(), ElementsAre(258));
  EXPECT_THAT(error_of([&] { back.at("y"); }), HasSubstr("no field 'y' (fields: x)"));
}

TEST(SqliteDataset, WritesAndReadsItemsLazily) {
  TmpDir dir;
  std::string db = dir.file("data.sqlite");
  write_items(db, "train", 7);
  write_items(db, "test", 2);
  EXPECT_THAT(SqliteDataset::splits(db), ElementsAre("test", "train"));
  SqliteDataset train(db, "train");
  ASSERT_EQ(train.size(), 7u);
  TensorItem it = *train.get(5);
  EXPECT_THAT(it.names(), ElementsAre("image", "label", "weight"));
  EXPECT_EQ(it.at("image").shape(), Shape({2, 3}));
  EXPECT_THAT(it.at("image").to_vec<uint8_t>(), ElementsAre(50, 51, 52, 53, 54, 55));
  EXPECT_THAT(it.at("label").to_vec<int64_t>(), ElementsAre(2));
  EXPECT_THAT(it.at("weight").to_vec<float>(), ElementsAre(2.5f));
  EXPECT_EQ(train.get(7), std::nullopt);
  EXPECT_EQ(SqliteDataset(db, "test").size(), 2u);
}

TEST(SqliteDataset, ReadByLoaderWorkers) {
  TmpDir dir;
  std::string db = dir.file("data.sqlite");
  write_items(db, "train", 50);
  auto ds = std::make_shared<SqliteDataset>(db, "train");
  auto batcher = std::make_shared<FnBatcher<TensorItem, std::vector<int>>>([](std::vector<TensorItem> items) {
    std::vector<int> first_pixels;
    for (auto& it : items) first_pixels.push_back(it.at("image").to_vec<uint8_t>()[0]);
    return first_pixels;
  });
  DataLoader<TensorItem, std::vector<int>> loader(ds, batcher,
                                                  {.batch_size = 4, .shuffle = true, .seed = 3, .num_workers = 3});
  auto it = loader.iter();
  std::vector<int> got;
  while (auto b = it.next()) got.insert(got.end(), b->begin(), b->end());
  std::vector<int> want;
  for (size_t i : LoaderEngine::epoch_indices(50, loader.options(), 0)) want.push_back(int(i * 10 % 256));
  EXPECT_EQ(got, want);
}

TEST(SqliteDatasetWriter, UnfinishedWriteLeavesNothingAndAppendContinues) {
  TmpDir dir;
  std::string db = dir.file("data.sqlite");
  write_items(db, "train", 3);
  {
    SqliteDatasetWriter w(db, "train");  // overwrite, but never finished: rolled back
    w.write(item(9));
  }
  SqliteDataset kept(db, "train");
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_THAT(kept.get(0)->at("image").to_vec<uint8_t>()[0], 0);
  {
    SqliteDatasetWriter w(db, "train", /*overwrite=*/false);
    EXPECT_EQ(w.write(item(3)), 3u);
    w.finish();
    EXPECT_THAT(error_of([&] { w.write(item(4)); }), HasSubstr("write after finish()"));
  }
  SqliteDataset appended(db, "train");
  ASSERT_EQ(appended.size(), 4u);
  EXPECT_THAT(appended.get(3)->at("image").to_vec<uint8_t>()[0], 30);
  { SqliteDatasetWriter fresh(db, "new_split"); }
  EXPECT_THAT(SqliteDataset::splits(db), ElementsAre("train"));
}

TEST(SqliteDataset, ErrorsNameTheFileTableAndItem) {
  TmpDir dir;
  std::string db = dir.file("data.sqlite");
  write_items(db, "train", 3);
  EXPECT_THAT(error_of([&] { SqliteDataset(db, "valid"); }),
              AllOf(HasSubstr("data.sqlite': no table 'valid' (tables: train)")));
  EXPECT_THAT(error_of([&] { SqliteDataset(db, "bad name"); }), HasSubstr("split name 'bad name' must be"));
  {
    SqliteDatasetWriter w(db, "train", false);
    const uint8_t junk[] = {'B', 'D', 'I', '1', 1, 0, 0, 0, 200, 0};
    w.write_blob(junk, sizeof junk);
    w.finish();
  }
  SqliteDataset ds(db, "train");
  EXPECT_THAT(error_of([&] { ds.get(3); }),
              AllOf(HasSubstr("data.sqlite' table train item 3: item blob truncated in name")));
  // A row removed behind the dataset's back.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_exec(h, "DELETE FROM train WHERE row_id = 2", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  SqliteDataset holed(db, "train");
  EXPECT_EQ(holed.size(), 3u);
  EXPECT_THAT(error_of([&] { holed.get(1); }), HasSubstr("table train item 1: row_id 2 is missing"));
  test::write_text(dir.file("text.sqlite"), "this is not a database at all, just some text that is long enough");
  EXPECT_THAT(error_of([&] { SqliteDataset(dir.file("text.sqlite"), "train"); }),
              AllOf(HasSubstr("text.sqlite'"), HasSubstr("not a readable SQLite database")));
  EXPECT_THAT(error_of([&] { SqliteDataset(dir.file("absent.sqlite"), "train"); }),
              HasSubstr("absent.sqlite': cannot open"));
}
