// Loading foreign files: remapping and selection over any reader, and loading into modules through
// the PyTorch adapter (layouts and names of torch.nn's layers as burn-nn's).
#include "burn/import/load.hpp"

#include <cstring>
#include <regex>
#include <unordered_map>

#include "burn/import/reader.hpp"
#include "burn/record/file.hpp"
#include "burn/tensor/error.hpp"
#include "pytorch_adapter.hpp"

namespace burn::import {

using record::EntryKind;
using record::Record;
using record::RecordReader;

namespace {

struct CompiledRule {
  std::regex re;
  std::string replacement;
};

std::regex compile(const std::string& pattern, const char* what) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ValueError("import.load", std::string(what) + " '" + pattern + "' is not a valid regex: " + e.what());
  }
}

std::vector<CompiledRule> compile_rules(const std::vector<KeyRemap>& rules) {
  std::vector<CompiledRule> out;
  out.reserve(rules.size());
  for (const auto& r : rules) out.push_back({compile(r.pattern, "remap pattern"), r.replacement});
  return out;
}

// The ids of a module record (_param_ids.<parameter path>) follow their parameters: the rules see the
// parameter path only.
constexpr std::string_view kIdsPrefix = "_param_ids.";

std::string apply_rules(const std::string& key, const std::vector<CompiledRule>& rules) {
  const bool id = key.starts_with(kIdsPrefix);
  std::string k = id ? key.substr(kIdsPrefix.size()) : key;
  for (const auto& r : rules) k = std::regex_replace(k, r.re, r.replacement);
  return id ? std::string(kIdsPrefix) + k : k;
}

bool selected(const std::string& key, const std::optional<std::regex>& select) {
  if (!select) return true;
  const std::string_view k = key.starts_with(kIdsPrefix) ? std::string_view(key).substr(kIdsPrefix.size()) : key;
  return std::regex_search(k.begin(), k.end(), *select);
}

// Why a select pattern that kept nothing is an error (an empty output file is never what was meant):
// where, the pattern, how many keys it saw and the first few of them (after remapping, as it saw them).
std::string nothing_selected(const std::string& where, const std::string& pattern, const std::vector<std::string>& keys,
                             bool remapped) {
  constexpr size_t kShown = 5;
  std::string msg = where + ": select pattern '" + pattern + "' matches none of its " + std::to_string(keys.size()) +
                    " keys" + (remapped ? " (after remapping)" : "");
  for (size_t i = 0; i < keys.size() && i < kShown; ++i) msg += (i ? ", '" : "; they include '") + keys[i] + "'";
  if (keys.size() > kShown) msg += ", ...";
  return msg;
}

}  // namespace

KeyRemap parse_remap(std::string_view rule) {
  std::string pattern;
  for (size_t i = 0; i < rule.size(); ++i) {
    if (rule[i] == '\\' && i + 1 < rule.size() && rule[i + 1] == '=') {
      pattern += '=';
      ++i;
    } else if (rule[i] == '=') {
      KeyRemap r{pattern, std::string(rule.substr(i + 1))};
      compile(r.pattern, "remap pattern");
      return r;
    } else {
      pattern += rule[i];
    }
  }
  throw ValueError("import.parse_remap", "remap rule '" + std::string(rule) + "' has no '=' (REGEX=REPLACEMENT)");
}

std::string remap_key(const std::string& key, const std::vector<KeyRemap>& rules) {
  return apply_rules(key, compile_rules(rules));
}

std::string format_of(const std::string& path, const ImportOptions& options) {
  if (!options.importer.empty()) return options.importer;
  if (const auto i = importer_for_file(path)) return i->name();
  return record::recorder_for_path(path)->name();
}

std::unique_ptr<RecordReader> open(const std::string& path, const LoadOptions& options) {
  std::unique_ptr<RecordReader> reader = open(path, options.import);
  if (options.remap.empty() && options.select.empty()) return reader;
  const std::vector<CompiledRule> rules = compile_rules(options.remap);
  std::optional<std::regex> select;
  if (!options.select.empty()) select = compile(options.select, "select pattern");
  std::vector<std::string> leaves;
  std::vector<size_t> from;
  std::unordered_map<std::string, std::string> origin;  // new name -> old, to name both on a clash
  const auto& all = reader->entries();
  std::vector<std::string> seen;  // the keys the pattern saw, for the message when it keeps none
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].kind == EntryKind::Group) continue;
    std::string key = apply_rules(all[i].path, rules);
    if (!selected(key, select)) {
      seen.push_back(std::move(key));
      continue;
    }
    const auto [it, added] = origin.emplace(key, all[i].path);
    if (!added) {
      throw record::record_error("import.remap", path, key,
                                 "both '" + it->second + "' and '" + all[i].path + "' are renamed to it");
    }
    leaves.push_back(std::move(key));
    from.push_back(i);
  }
  if (select && leaves.empty()) {
    throw ValueError("import.select", nothing_selected(path, options.select, seen, !rules.empty()));
  }
  return rename_entries(std::move(reader), leaves, from);
}

Record load(const std::string& path, const LoadOptions& options) {
  return open(path, options)->read_all(options.float_dtype);
}

std::string ImportReport::to_string() const {
  std::string s = nn::LoadReport::to_string();
  if (!ignored.empty()) {
    s += "; ignored " + std::to_string(ignored.size()) + ":";
    for (const auto& i : ignored) s += " " + i;
  }
  return s;
}

namespace detail {

ImportReport load_record_into(nn::ModuleRef m, Record rec, const ModuleImportOptions& options) {
  if (!options.load.remap.empty() || !options.load.select.empty()) {
    const std::vector<CompiledRule> rules = compile_rules(options.load.remap);
    std::optional<std::regex> select;
    if (!options.load.select.empty()) select = compile(options.load.select, "select pattern");
    Record out;
    out.metadata() = rec.metadata();
    std::vector<std::string> seen;
    for (const record::FlatEntry& e : rec.flatten()) {
      if (e.value->kind() == EntryKind::Group) continue;
      std::string key = apply_rules(e.path, rules);
      if (!selected(key, select)) {
        seen.push_back(std::move(key));
        continue;
      }
      if (out.contains(key)) throw RecordError("import.remap", "two entries are renamed to '" + key + "'");
      out.set(key, *e.value);
    }
    if (select && out.empty()) {
      throw ValueError("import.select",
                       nothing_selected("the record", options.load.select, seen, !options.load.remap.empty()));
    }
    rec = std::move(out);
  }
  ImportReport report;
  if (options.adapter == Adapter::PyTorch) report.ignored = adapt_from_pytorch(m, rec);
  nn::ModuleLoadOptions lo;
  lo.strict = options.strict;
  lo.keep_ids = options.keep_ids;
  static_cast<nn::LoadReport&>(report) = nn::detail::load_record(m, rec, lo);
  return report;
}

ImportReport load_into(nn::ModuleRef m, const std::string& path, const ModuleImportOptions& options) {
  Record rec = open(path, options.load)->read_all(options.load.float_dtype);
  try {
    ModuleImportOptions rest = options;
    rest.load.remap.clear();  // already applied by open()
    rest.load.select.clear();
    return load_record_into(m, std::move(rec), rest);
  } catch (const RecordError& e) {
    if (std::string_view(e.what()).find(path) != std::string_view::npos) throw;
    throw RecordError("import.load_into", path + ": " + e.what());
  }
}

}  // namespace detail
}  // namespace burn::import
