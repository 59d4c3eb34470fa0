// Helpers for importers' readers: EntryIndex (from burn-record) and readers over another reader (one group of it;
// renamed or selected entries).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "burn/import/export.hpp"
#include "burn/record/entry_index.hpp"
#include "burn/record/recorder.hpp"

namespace burn::import {

// EntryIndex moved to burn-record (the safetensors recorder uses it too); the old name stays.
using record::EntryIndex;

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
