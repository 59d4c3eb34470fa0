// EntryIndex: the entries of a reader of flat dotted names, groups added before their children.
#include "burn/record/entry_index.hpp"

#include "burn/record/file.hpp"

namespace burn::record {

EntryIndex::EntryIndex(std::string op, std::string file) : op_(std::move(op)), file_(std::move(file)) {}

void EntryIndex::ensure_groups(std::string_view path) {
  for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', dot + 1)) {
    const std::string group(path.substr(0, dot));
    const auto [it, added] = kinds_.emplace(group, EntryKind::Group);
    if (added) {
      entries_.push_back({group, EntryKind::Group, DType::F32, {}, 0});
    } else if (it->second != EntryKind::Group) {
      throw record_error(op_, file_, path, "'" + group + "' is both a value and a group of values");
    }
  }
}

size_t EntryIndex::add(EntryInfo leaf) {
  try {
    check_path(leaf.path, op_.c_str());
  } catch (const RecordError& e) {
    throw record_error(op_, file_, "", std::string("bad entry name: ") + e.what());
  }
  ensure_groups(leaf.path);
  const auto [it, added] = kinds_.emplace(leaf.path, leaf.kind);
  if (!added) {
    throw record_error(op_, file_, leaf.path,
                       it->second == EntryKind::Group ? "is both a value and a group of values" : "appears twice");
  }
  entries_.push_back(std::move(leaf));
  return entries_.size() - 1;
}

void EntryIndex::add_group(std::string_view path) {
  try {
    check_path(path, op_.c_str());
  } catch (const RecordError& e) {
    throw record_error(op_, file_, "", std::string("bad entry name: ") + e.what());
  }
  ensure_groups(path);
  const auto [it, added] = kinds_.emplace(std::string(path), EntryKind::Group);
  if (added) {
    entries_.push_back({std::string(path), EntryKind::Group, DType::F32, {}, 0});
  } else if (it->second != EntryKind::Group) {
    throw record_error(op_, file_, path, "is both a value and a group of values");
  }
}

}  // namespace burn::record
