// The CSV parser of csv.hpp: one pass over the text, a field at a time, quotes as RFC 4180.
#include "burn/data/csv.hpp"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>

#include "io.hpp"

namespace burn::data {

struct CsvInfo {
  std::string name;
  std::vector<std::string> header;
  std::vector<CsvType> types;
};

namespace {
constexpr const char* kCsvOp = "data::CsvDataset";

constexpr size_t kHeader = SIZE_MAX, kNoColumn = SIZE_MAX;

// "'f.csv' line 7 (item 5), column 2 ('price')": the item is the row's index in the dataset
// (kHeader for the header line).
std::string where(const CsvInfo& info, size_t line, size_t item, size_t col = kNoColumn) {
  std::string s = detail::quoted(info.name) + " line " + std::to_string(line);
  s += item == kHeader ? std::string(" (header)") : " (item " + std::to_string(item) + ")";
  if (col != kNoColumn) {
    s += ", column " + std::to_string(col + 1);
    if (col < info.header.size()) s += " (" + detail::quoted(info.header[col]) + ")";
  }
  return s;
}

std::optional<int64_t> parse_int(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_float(const std::string& s) {
  if (s.empty()) return std::nullopt;
  // strtod (not from_chars) so that "1e5", "inf" and "nan" parse as everywhere else; locale "C" in tests.
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}
}  // namespace

const std::string& CsvRow::str(size_t col) const {
  if (col >= fields_.size())
    throw DataError(
        kCsvOp, where(*info_, line_, item_, col) + ": the row has only " + std::to_string(fields_.size()) + " columns");
  return fields_[col];
}

int64_t CsvRow::as_int(size_t col) const {
  auto v = parse_int(str(col));
  if (!v)
    throw DataError(kCsvOp,
                    where(*info_, line_, item_, col) + ": " + detail::quoted(fields_[col]) + " is not an integer");
  return *v;
}

double CsvRow::as_float(size_t col) const {
  auto v = parse_float(str(col));
  if (!v)
    throw DataError(kCsvOp,
                    where(*info_, line_, item_, col) + ": " + detail::quoted(fields_[col]) + " is not a number");
  return *v;
}

size_t CsvRow::column(std::string_view name) const {
  for (size_t i = 0; i < info_->header.size(); ++i)
    if (info_->header[i] == name) return i;
  throw DataError(kCsvOp, detail::quoted(info_->name) + ": no column named " + detail::quoted(std::string(name)));
}

CsvDataset::CsvDataset(const std::string& path, CsvOptions options) {
  std::vector<uint8_t> bytes = detail::read_file(path, kCsvOp);
  parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options, path);
}

CsvDataset CsvDataset::from_string(std::string_view text, CsvOptions options, const std::string& name) {
  CsvDataset ds;
  ds.parse(text, options, name);
  return ds;
}

void CsvDataset::parse(std::string_view text, const CsvOptions& o, const std::string& name) {
  auto info = std::make_shared<CsvInfo>();
  info->name = name;
  info->types = o.types;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  size_t i = 0, line = 1, expected = 0;
  bool first = true;
  std::vector<std::string> fields;
  std::string field;
  while (i < text.size()) {
    const size_t row_line = line;
    // The item this row becomes; the first row is the header when there is one.
    const size_t item = first && o.has_header ? kHeader : rows_.size();
    fields.clear();
    // One record: fields until an unquoted line end or the end of the text.
    for (;;) {
      field.clear();
      if (i < text.size() && text[i] == o.quote) {
        ++i;
        for (;;) {
          if (i >= text.size())
            throw DataError(kCsvOp, where(*info, row_line, item, fields.size()) + ": unterminated quoted field");
          char c = text[i++];
          if (c == o.quote) {
            if (i < text.size() && text[i] == o.quote) {
              field += o.quote;
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          field += c;
        }
        if (i < text.size() && text[i] != o.delimiter && text[i] != '\n' && text[i] != '\r')
          throw DataError(kCsvOp, where(*info, line, item, fields.size()) + ": text after a closing quote");
      } else {
        while (i < text.size() && text[i] != o.delimiter && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == o.quote)
            throw DataError(kCsvOp, where(*info, line, item, fields.size()) + ": quote inside an unquoted field");
          field += text[i++];
        }
      }
      fields.push_back(field);
      if (i < text.size() && text[i] == o.delimiter) {
        ++i;
        continue;
      }
      if (i < text.size() && text[i] == '\r') ++i;
      if (i < text.size() && text[i] == '\n') ++i, ++line;
      break;
    }
    if (o.skip_empty_lines && fields.size() == 1 && fields[0].empty()) continue;
    if (first) {
      expected = fields.size();
      first = false;
      if (o.has_header) {
        info->header = fields;
        continue;
      }
    }
    if (fields.size() != expected)
      throw DataError(kCsvOp, where(*info, row_line, item) + ": " + std::to_string(fields.size()) +
                                  " fields, expected " + std::to_string(expected));
    CsvRow row;
    row.fields_ = fields;
    row.line_ = row_line;
    row.item_ = rows_.size();
    row.info_ = info;
    for (size_t c = 0; c < fields.size() && c < o.types.size(); ++c) {
      if (o.types[c] == CsvType::Int) (void)row.as_int(c);
      if (o.types[c] == CsvType::Float) (void)row.as_float(c);
    }
    rows_.push_back(std::move(row));
  }
  if (!o.types.empty() && o.types.size() != expected && !first)
    throw DataError(kCsvOp, detail::quoted(name) + ": " + std::to_string(o.types.size()) + " column types given for " +
                                std::to_string(expected) + " columns");
  info_ = info;
}

std::optional<CsvRow> CsvDataset::get(size_t index) const {
  if (index >= rows_.size()) return std::nullopt;
  return rows_[index];
}

const std::vector<std::string>& CsvDataset::header() const { return info_->header; }

}  // namespace burn::data
