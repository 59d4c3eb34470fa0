// RecordReader's generic parts: groups, casts and read_all() on top of a recorder's read_leaf().
#include "burn/record/file.hpp"
#include "internal.hpp"

namespace burn::record {

using detail::cast_float;

// ---- RecordReader ----

RecordReader::~RecordReader() = default;
Recorder::~Recorder() = default;

const EntryInfo* RecordReader::find(std::string_view path) const {
  const auto& all = entries();
  if (by_path_.empty() && !all.empty()) {
    for (size_t i = 0; i < all.size(); ++i) by_path_.emplace(all[i].path, i);
  }
  const auto it = by_path_.find(std::string(path));
  return it == by_path_.end() ? nullptr : &all[it->second];
}

Value RecordReader::read(std::string_view path) {
  const EntryInfo* info = find(path);
  if (!info) throw record_error("record.read", this->path(), path, "no such entry in the file");
  if (info->kind != EntryKind::Group) return read_leaf(*info);
  Record group;
  const std::string prefix = std::string(path) + ".";
  for (const auto& e : entries()) {
    if (e.path.size() <= prefix.size() || e.path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rel = e.path.substr(prefix.size());
    if (e.kind == EntryKind::Group) {
      if (!group.contains(rel)) group.set(rel, Value());
    } else {
      group.set(rel, read_leaf(e));
    }
  }
  return Value(std::move(group));
}

TensorData RecordReader::read_tensor(std::string_view path, std::optional<DType> float_dtype) {
  Value v = read(path);
  if (v.kind() != EntryKind::Tensor) {
    throw record_error("record.read", this->path(), path,
                       "is a " + std::string(entry_kind_name(v.kind())) + ", not a tensor");
  }
  if (float_dtype && is_float(v.tensor().dtype())) return cast_float(v.tensor(), *float_dtype);
  return std::move(v.tensor());
}

Record RecordReader::read_all(std::optional<DType> float_dtype) {
  Record r;
  r.metadata() = metadata();
  for (const auto& e : entries()) {
    if (e.kind == EntryKind::Group) {
      if (!r.contains(e.path)) r.set(e.path, Value());
      continue;
    }
    Value v = read_leaf(e);
    // Cast as each entry arrives, so at most one entry exists in both dtypes.
    if (float_dtype && v.kind() == EntryKind::Tensor && is_float(v.tensor().dtype()) &&
        v.tensor().dtype() != *float_dtype) {
      v = Value(cast_float(v.tensor(), *float_dtype));
    }
    r.set(e.path, std::move(v));
  }
  return r;
}

}  // namespace burn::record
