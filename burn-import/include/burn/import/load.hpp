// Loading foreign files: key remapping, selection, top-level key and dtype casts over any importer
// or burn-record file, and loading into modules with an adapter for PyTorch's names and layouts.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burn/import/export.hpp"
#include "burn/import/importer.hpp"
#include "burn/nn/module.hpp"

namespace burn::import {

// One renaming rule: every key (full dotted path of a leaf) matching `pattern` (std::regex,
// ECMAScript) is rewritten with std::regex_replace ("$1" refers to a capture). Rules apply in order,
// each to the result of the previous ones. Parameter ids (_param_ids.<path>) follow their parameter:
// rules and `select` see <path>.
struct KeyRemap {
  std::string pattern;
  std::string replacement;
};

// Parses "REGEX=REPLACEMENT", split at the first '=' not preceded by a backslash ("\=" is a literal
// '=' of the pattern). ValueError when there is no such '=' or the pattern is not a valid regex.
BURN_IMPORT_API KeyRemap parse_remap(std::string_view rule);

struct LoadOptions {
  ImportOptions import = {};    // importer and top-level key
  std::vector<KeyRemap> remap;  // applied in order to every key, after the top-level key
  std::string select;           // when set, keep only the keys (after remapping) it matches (regex_search)
  std::optional<DType> float_dtype = std::nullopt;  // cast float tensors to it; int/bool never
};

// Opens any importable file (an importer's format or a burn-record file) with the top-level key,
// remapping and selection applied lazily: the data of an entry is read when it is read.
BURN_IMPORT_API std::unique_ptr<record::RecordReader> open(const std::string& path, const LoadOptions& options);
// The whole record (float tensors cast to options.float_dtype when set).
BURN_IMPORT_API record::Record load(const std::string& path, const LoadOptions& options = {});
// The name of the importer or recorder that open() uses for the file ("safetensors", "zstd").
BURN_IMPORT_API std::string format_of(const std::string& path, const ImportOptions& options = {});
// A key after the remapping rules, as open() renames it (for tests and tools).
BURN_IMPORT_API std::string remap_key(const std::string& key, const std::vector<KeyRemap>& rules);

// How a file's names and layouts relate to burn-nn's.
enum class Adapter : uint8_t {
  None,     // the file uses burn-nn's names and layouts
  PyTorch,  // torch.nn: Linear weight [out, in] (burn: [in, out]), norms' weight/bias (burn: gamma/beta),
            // BatchNorm's num_batches_tracked (no burn counterpart: ignored)
};

struct ModuleImportOptions {
  LoadOptions load = {};
  Adapter adapter = Adapter::None;
  // Throw a RecordError listing what is missing, unexpected or mismatched instead of loading what
  // matches. Entries the adapter ignores (num_batches_tracked) never count against it.
  bool strict = false;
  bool keep_ids = true;  // take parameter ids from the file's _param_ids group when it has one
};

// nn::LoadReport plus the entries the adapter dropped on purpose (not errors, even when strict).
struct ImportReport : nn::LoadReport {
  std::vector<std::string> ignored;
  BURN_IMPORT_API std::string to_string() const;
};

namespace detail {
BURN_IMPORT_API ImportReport load_into(nn::ModuleRef m, const std::string& path, const ModuleImportOptions& options);
BURN_IMPORT_API ImportReport load_record_into(nn::ModuleRef m, record::Record rec, const ModuleImportOptions& options);
}  // namespace detail

// Loads the file's tensors into the module's parameters (cast to each parameter's dtype).
template <nn::detail::Module M>
ImportReport load_into(M& m, const std::string& path, const ModuleImportOptions& options = {}) {
  return detail::load_into(m, path, options);
}
// The same from a record already read (remap/select of options.load are applied to it too).
template <nn::detail::Module M>
ImportReport load_record_into(M& m, record::Record rec, const ModuleImportOptions& options = {}) {
  return detail::load_record_into(m, std::move(rec), options);
}

}  // namespace burn::import
