// A SQLite-backed dataset for data that does not fit in memory (Burn's SqliteDataset): one table per
// split, `CREATE TABLE <split> (row_id INTEGER PRIMARY KEY, item BLOB NOT NULL)`, item i at row_id
// i + 1, read lazily by index. Items are TensorItems (named tensors) serialised as blobs:
//   "BDI1", u32 count, then per tensor: u16 name length, name (UTF-8), u8 dtype (burn::DType value),
//   u8 rank, rank x i64 dims, the elements' raw bytes (little-endian, row-major)
// all integers little-endian. A typed dataset is a MapperDataset over SqliteDataset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/data/dataset.hpp"
#include "burn/data/export.hpp"
#include "burn/tensor/data.hpp"

namespace burn::data {

// Named tensors in insertion order: one item of a SqliteDataset.
class BURN_DATA_API TensorItem {
 public:
  TensorItem& add(std::string name, TensorData data);
  bool contains(std::string_view name) const;
  const TensorData& at(std::string_view name) const;  // DataError naming the missing field
  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<TensorData>& tensors() const { return tensors_; }

  std::vector<uint8_t> encode() const;
  // DataError naming `where` (file, table, row) for a blob that is not a valid encoding.
  static TensorItem decode(const uint8_t* data, size_t size, const std::string& where);

 private:
  std::vector<std::string> names_;
  std::vector<TensorData> tensors_;
};

class BURN_DATA_API SqliteDataset : public Dataset<TensorItem> {
 public:
  // Opens `path` read-only; DataError naming the file when it is not a SQLite database or has no
  // table `split` with columns row_id and item.
  SqliteDataset(const std::string& path, const std::string& split);
  ~SqliteDataset() override;
  // Thread-safe: each reading thread gets a connection of its own from a small pool.
  std::optional<TensorItem> get(size_t index) const override;
  std::optional<std::vector<uint8_t>> get_blob(size_t index) const;
  size_t size() const override { return size_; }
  // The split tables of a database file (sorted).
  static std::vector<std::string> splits(const std::string& path);

 private:
  struct Pool;
  std::string path_, split_;
  size_t size_ = 0;
  std::unique_ptr<Pool> pool_;
};

// Writes a split table in one transaction: the table appears complete on finish(), or not at all
// (the destructor rolls back an unfinished write). Not thread-safe: one writer thread.
class BURN_DATA_API SqliteDatasetWriter {
 public:
  // Creates the file if needed; an existing table `split` is replaced when `overwrite`, else appended to.
  SqliteDatasetWriter(const std::string& path, const std::string& split, bool overwrite = true);
  ~SqliteDatasetWriter();
  SqliteDatasetWriter(const SqliteDatasetWriter&) = delete;
  SqliteDatasetWriter& operator=(const SqliteDatasetWriter&) = delete;
  // Appends an item; returns its index in the split.
  size_t write(const TensorItem& item);
  size_t write_blob(const uint8_t* data, size_t size);
  // Commits; the writer cannot be used after.
  void finish();
  size_t size() const { return next_; }

 private:
  struct Conn;
  std::string path_, split_;
  size_t next_ = 0;
  std::unique_ptr<Conn> conn_;
};

}  // namespace burn::data
