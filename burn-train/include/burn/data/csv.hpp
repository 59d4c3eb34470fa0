// CSV rows as a dataset (Burn's InMemDataset::from_csv, without serde): RFC 4180 quoting ("a ""b""",
// separators and newlines inside quotes), \n or \r\n line ends, an optional header naming the columns,
// and typed columns checked when the file is read, so a malformed value is reported with its line
// before training starts. The rows are held in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burn/data/dataset.hpp"
#include "burn/data/export.hpp"

namespace burn::data {

enum class CsvType { String, Int, Float };

struct CsvOptions {
  char delimiter = ',';
  char quote = '"';
  bool has_header = true;
  // Types by column (missing entries: String). Int: a whole int64; Float: a double (empty is an error).
  std::vector<CsvType> types;
  bool skip_empty_lines = true;
};

struct CsvInfo;  // the file name, header and column types shared by the rows of a dataset

// One row: its fields as text, typed access that names the file, line, item and column on a bad value.
class BURN_DATA_API CsvRow {
 public:
  CsvRow() = default;
  size_t size() const { return fields_.size(); }
  const std::string& str(size_t col) const;
  int64_t as_int(size_t col) const;
  double as_float(size_t col) const;
  // By header name (DataError for an unknown name).
  const std::string& str(std::string_view name) const { return str(column(name)); }
  int64_t as_int(std::string_view name) const { return as_int(column(name)); }
  double as_float(std::string_view name) const { return as_float(column(name)); }
  size_t column(std::string_view name) const;
  size_t line() const { return line_; }  // 1-based line where the row starts
  size_t item() const { return item_; }  // the row's index in its dataset

 private:
  friend class CsvDataset;
  std::vector<std::string> fields_;
  size_t line_ = 0;
  size_t item_ = 0;
  std::shared_ptr<const CsvInfo> info_;
};

class BURN_DATA_API CsvDataset : public Dataset<CsvRow> {
 public:
  // Reads and checks the whole file: DataError naming the file and line for an unterminated quote,
  // text after a closing quote, a row whose field count differs from the first row's, or a value
  // that does not parse as its column's type.
  explicit CsvDataset(const std::string& path, CsvOptions options = {});
  // The same from text in memory (`name` stands for the file in messages).
  static CsvDataset from_string(std::string_view text, CsvOptions options = {}, const std::string& name = "<string>");
  std::optional<CsvRow> get(size_t index) const override;
  size_t size() const override { return rows_.size(); }
  const std::vector<std::string>& header() const;

 private:
  CsvDataset() = default;
  void parse(std::string_view text, const CsvOptions& options, const std::string& name);
  std::vector<CsvRow> rows_;
  std::shared_ptr<const CsvInfo> info_;
};

}  // namespace burn::data
