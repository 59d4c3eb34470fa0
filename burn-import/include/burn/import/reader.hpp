// Helpers for importers' readers: an index of dotted names that makes the groups a RecordReader
// lists, and readers over another reader (one group of it; renamed or selected entries).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "burn/import/export.hpp"
#include "burn/record/recorder.hpp"

namespace burn::import {

// Builds RecordReader::entries() from leaves named by dotted paths ("layer.0.weight"), adding each
// group ("layer", "layer.0") before its first child. Checks every path (record::check_path) and
// that no path is both a leaf and a group or given twice; errors are RecordError(op) naming the
// file and the entry.
class BURN_IMPORT_API EntryIndex {
 public:
  EntryIndex(std::string op, std::string file);
  // Adds a leaf; returns its position in entries().
  size_t add(record::EntryInfo leaf);
  // Adds an empty group (for files that hold empty mappings).
  void add_group(std::string_view path);
  const std::vector<record::EntryInfo>& entries() const { return entries_; }
  std::vector<record::EntryInfo>& entries() { return entries_; }

 private:
  void ensure_groups(std::string_view path);
  std::string op_, file_;
  std::vector<record::EntryInfo> entries_;
  std::unordered_map<std::string, record::EntryKind> kinds_;
};

// A reader over the group `key` of `inner` (paths below it, the prefix removed). RecordError naming
// the file and listing the top-level keys when there is no such group.
BURN_IMPORT_API std::unique_ptr<record::RecordReader> select_group(std::unique_ptr<record::RecordReader> inner,
                                                                   std::string_view key);

// A reader whose leaves are `inner`'s renamed: leaves[i] is the new path of inner.entries()[from[i]].
// Groups are rebuilt from the new names; RecordError when two leaves get the same name.
BURN_IMPORT_API std::unique_ptr<record::RecordReader> rename_entries(std::unique_ptr<record::RecordReader> inner,
                                                                     const std::vector<std::string>& leaves,
                                                                     const std::vector<size_t>& from);

}  // namespace burn::import
