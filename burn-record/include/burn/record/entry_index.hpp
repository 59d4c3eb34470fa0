// Building a RecordReader's entries() from leaves named by dotted paths, for readers of formats
// that store flat names (safetensors, PyTorch state dicts, Burn's records).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "burn/record/export.hpp"
#include "burn/record/recorder.hpp"

namespace burn::record {

// Builds RecordReader::entries() from leaves named by dotted paths ("layer.0.weight"), adding each
// group ("layer", "layer.0") before its first child. Checks every path (check_path) and that no
// path is both a leaf and a group or given twice; errors are RecordError(op) naming the file and
// the entry.
class BURN_RECORD_API EntryIndex {
 public:
  EntryIndex(std::string op, std::string file);
  // Adds a leaf; returns its position in entries().
  size_t add(EntryInfo leaf);
  // Adds an empty group (for files that hold empty mappings).
  void add_group(std::string_view path);
  const std::vector<EntryInfo>& entries() const { return entries_; }
  std::vector<EntryInfo>& entries() { return entries_; }

 private:
  void ensure_groups(std::string_view path);
  std::string op_, file_;
  std::vector<EntryInfo> entries_;
  std::unordered_map<std::string, EntryKind> kinds_;
};

}  // namespace burn::record
