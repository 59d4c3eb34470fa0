// Record: an ordered set of named entries (tensor data of any dtype, scalars, strings, nested
// groups) plus metadata. What modules, optimisers and schedulers are saved as; recorders write it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "burn/record/export.hpp"
#include "burn/tensor/data.hpp"

namespace burn::record {

// The kind of an entry. The numeric values are part of the zstd file format: never renumber.
enum class EntryKind : uint8_t { Group = 0, Tensor = 1, Int = 2, Float = 3, Bool = 4, String = 5 };

BURN_RECORD_API std::string_view entry_kind_name(EntryKind k);  // "group", "tensor", "int", ...

// Version of the record layout (entry kinds, naming, metadata keys), written in every file.
inline constexpr uint32_t kRecordFormatVersion = 1;

// Limits every reader enforces before it allocates; a writer refuses what a reader would refuse.
inline constexpr size_t kMaxNameLength = 4096;  // bytes of a full path such as "blocks.3.attn.q.weight"
inline constexpr size_t kMaxDepth = 64;         // path segments
inline constexpr size_t kMaxRank = 32;          // tensor dims

// Throws RecordError(op, ...) when `path` is not a valid entry path: non-empty segments separated by
// '.', no control characters, no '/', at most kMaxNameLength bytes and kMaxDepth segments.
BURN_RECORD_API void check_path(std::string_view path, const char* op);

struct Metadata {
  uint32_t format_version = kRecordFormatVersion;
  std::string burn_version;           // burn-record version that wrote the file; set by save()
  std::string producer;               // free text: the program or library that made the record
  std::string dtype_policy = "keep";  // the precision policy of the save ("keep", "f32", "f16", ...)
  std::vector<std::pair<std::string, std::string>> extra;  // free key/values, in order

  // The value of an extra key, or nullptr.
  BURN_RECORD_API const std::string* find(std::string_view key) const;
  // Sets (replacing) an extra key.
  BURN_RECORD_API void set(std::string key, std::string value);
  bool operator==(const Metadata&) const = default;
};

class Record;

// One value: a tensor, a scalar, a string or a nested group. Accessors throw RecordError naming the
// kind held when asked for another.
class BURN_RECORD_API Value {
 public:
  Value();  // an empty group
  Value(TensorData t);
  Value(int64_t v);
  Value(int v) : Value(static_cast<int64_t>(v)) {}
  Value(double v);
  Value(bool v);
  Value(std::string s);
  Value(const char* s) : Value(std::string(s)) {}
  Value(Record r);
  Value(const Value& o);
  Value(Value&& o) noexcept;
  Value& operator=(const Value& o);
  Value& operator=(Value&& o) noexcept;
  ~Value();

  EntryKind kind() const { return kind_; }
  const TensorData& tensor() const;
  TensorData& tensor();
  int64_t as_int() const;
  double as_float() const;
  bool as_bool() const;
  const std::string& as_string() const;
  const Record& group() const;
  Record& group();
  bool operator==(const Value& o) const;

 private:
  void check(EntryKind want) const;
  EntryKind kind_;
  TensorData tensor_;
  int64_t int_ = 0;
  double float_ = 0;
  std::string string_;             // the string, for String
  std::unique_ptr<Record> group_;  // for Group
};

struct Entry {
  std::string name;  // one path segment
  Value value;
  bool operator==(const Entry&) const = default;
};

// Every leaf and group of a record in pre-order (a group before its children), with full paths.
struct FlatEntry {
  std::string path;
  const Value* value;
};

class BURN_RECORD_API Record {
 public:
  Record();
  Record(const Record& o);
  Record(Record&& o) noexcept;
  Record& operator=(const Record& o);
  Record& operator=(Record&& o) noexcept;
  ~Record();

  // Sets the value at a dotted path, creating the groups on the way ("blocks.3.attn.q.weight"). An
  // existing entry is replaced in place, keeping its position; a path through a non-group throws.
  void set(std::string_view path, Value value);
  // The value at a path; RecordError naming the path (and the closest existing prefix) when absent.
  const Value& at(std::string_view path) const;
  Value& at(std::string_view path);
  const Value* find(std::string_view path) const;
  bool contains(std::string_view path) const { return find(path) != nullptr; }
  // Removes the entry at a path; false when there was none.
  bool erase(std::string_view path);

  // Direct children in insertion order.
  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Every entry below this record, groups included, in pre-order with full paths.
  std::vector<FlatEntry> flatten() const;
  // Tensor entries (recursively) and the bytes they hold.
  size_t tensor_count() const;
  uint64_t tensor_bytes() const;

  const Metadata& metadata() const { return metadata_; }
  Metadata& metadata() { return metadata_; }

  // Entries and metadata equal (tensors bit for bit).
  bool operator==(const Record& o) const;

 private:
  Value* find_mut(std::string_view path);
  Value* child(std::string_view name);
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;  // child name -> position in entries_
  Metadata metadata_;
};

}  // namespace burn::record
