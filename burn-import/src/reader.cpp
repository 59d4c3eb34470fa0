// The readers over other readers (one group; renamed entries).
#include "burn/import/reader.hpp"

#include "burn/record/file.hpp"

namespace burn::import {

using record::EntryInfo;
using record::EntryKind;
using record::RecordReader;

namespace {

// Leaves of another reader under new names; groups rebuilt. Reads go to the inner reader.
class RenamedReader final : public RecordReader {
 public:
  RenamedReader(std::unique_ptr<RecordReader> inner, const std::vector<std::string>& leaves,
                const std::vector<size_t>& from)
      : inner_(std::move(inner)), index_("import.rename", inner_->path()) {
    const auto& all = inner_->entries();
    for (size_t i = 0; i < leaves.size(); ++i) {
      EntryInfo e = all.at(from[i]);
      e.path = leaves[i];
      source_.resize(index_.add(std::move(e)) + 1, SIZE_MAX);
      source_.back() = from[i];
    }
    source_.resize(index_.entries().size(), SIZE_MAX);
  }
  const std::string& path() const override { return inner_->path(); }
  const record::Metadata& metadata() const override { return inner_->metadata(); }
  const std::vector<EntryInfo>& entries() const override { return index_.entries(); }

 protected:
  record::Value read_leaf(const EntryInfo& info) override {
    const size_t i = static_cast<size_t>(&info - index_.entries().data());
    return inner_->read(inner_->entries()[source_[i]].path);
  }

 private:
  std::unique_ptr<RecordReader> inner_;
  EntryIndex index_;
  std::vector<size_t> source_;  // per entry of index_: the inner entry (SIZE_MAX for groups)
};

}  // namespace

std::unique_ptr<RecordReader> rename_entries(std::unique_ptr<RecordReader> inner,
                                             const std::vector<std::string>& leaves, const std::vector<size_t>& from) {
  if (leaves.size() != from.size()) throw ValueError("import.rename_entries", "leaves and from differ in length");
  return std::make_unique<RenamedReader>(std::move(inner), leaves, from);
}

std::unique_ptr<RecordReader> select_group(std::unique_ptr<RecordReader> inner, std::string_view key) {
  const EntryInfo* g = inner->find(key);
  if (!g || g->kind != EntryKind::Group) {
    std::string keys;
    for (const auto& e : inner->entries()) {
      if (e.path.find('.') != std::string::npos) continue;
      keys += (keys.empty() ? "" : ", ") + e.path;
    }
    throw record::record_error(
        "import.top_level_key", inner->path(), key,
        std::string(g ? "is a " + std::string(record::entry_kind_name(g->kind)) + ", not a group" : "no such key") +
            " (top-level keys: " + (keys.empty() ? "none" : keys) + ")");
  }
  const std::string prefix = std::string(key) + ".";
  std::vector<std::string> leaves;
  std::vector<size_t> from;
  const auto& all = inner->entries();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].kind == EntryKind::Group || !all[i].path.starts_with(prefix)) continue;
    leaves.push_back(all[i].path.substr(prefix.size()));
    from.push_back(i);
  }
  return rename_entries(std::move(inner), leaves, from);
}

}  // namespace burn::import
