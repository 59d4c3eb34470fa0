// Picking an importer (by name, extension or content; registered or plugin) and opening files with it.
#include "burn/import/importer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "burn/import/reader.hpp"
#include "burn/tensor/error.hpp"

namespace burn::import {

Importer::~Importer() = default;
bool Importer::sniff(std::span<const uint8_t>) const { return false; }
std::unique_ptr<Model> Importer::load_model(const std::string& path, const ModelOptions&) const {
  throw Unsupported("import.load_model", "'" + path + "' is read by the '" + name() +
                                             "' importer, whose files hold weights, not a model (use load or open)");
}

namespace {

long version_major(const char* v) {
  if (!v || *v < '0' || *v > '9') return -1;
  return std::strtol(v, nullptr, 10);
}

// Vets what an importer plugin's create() returned before anything is called through it.
std::string check_importer_object(void* object, std::string_view name) {
  const auto* o = static_cast<const BurnImporterObject*>(object);
  if (o->struct_size < sizeof(BurnImporterObject)) {
    return "importer object of " + std::to_string(o->struct_size) + " bytes, host expects at least " +
           std::to_string(sizeof(BurnImporterObject)) + " (not made by BURN_IMPORTER_PLUGIN?)";
  }
  const std::string built = o->burn_import_version ? o->burn_import_version : "";
  if (version_major(o->burn_import_version) != BURN_IMPORT_VERSION_MAJOR) {
    return "built against burn-import " + built + ", host is burn-import " + BURN_IMPORT_VERSION +
           " (the majors must match)";
  }
  if (!o->importer) return "create() returned no importer";
  const std::string made = o->importer->name();
  if (made != name) return "the plugin named '" + std::string(name) + "' made an importer named '" + made + "'";
  return {};
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Importer>, std::less<>> registered;
  std::map<std::string, std::shared_ptr<const Importer>, std::less<>> plugins;  // created so far
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: plugin objects outlive static destruction
  return *r;
}

// The file name in lowercase, which extensions are matched against.
std::string lowercase_file_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::vector<uint8_t> file_head(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RecordError("import", "cannot open '" + path + "' for reading");
  std::vector<uint8_t> head(n);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(n));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

// Every importer that can be created, with why the others cannot (for error messages).
std::vector<std::shared_ptr<const Importer>> usable_importers(std::string& failed) {
  std::vector<std::shared_ptr<const Importer>> out;
  for (const auto& n : importer_names()) {
    try {
      out.push_back(importer(n));
    } catch (const Error& e) {
      failed += "; importer '" + n + "' is unusable: " + e.what();
    }
  }
  return out;
}

}  // namespace

void register_importer(std::shared_ptr<const Importer> i) {
  if (!i) throw ValueError("import.register_importer", "null importer");
  const std::string name = i->name();
  std::lock_guard lock(registry().mutex);
  registry().registered[name] = std::move(i);
}

std::shared_ptr<const Importer> importer(std::string_view name) {
  Registry& reg = registry();
  {
    std::lock_guard lock(reg.mutex);
    if (const auto it = reg.registered.find(name); it != reg.registered.end()) return it->second;
    if (const auto it = reg.plugins.find(name); it != reg.plugins.end()) return it->second;
  }
  // Created without the lock: a plugin's factory may use burn-import itself.
  const std::shared_ptr<void> object =
      plugins::create_object(BURN_PLUGIN_IMPORTER, name, [name](void* o) { return check_importer_object(o, name); });
  // Aliasing: the Importer pointer shares ownership of the plugin object (and so of its library).
  std::shared_ptr<const Importer> i(object, static_cast<const BurnImporterObject*>(object.get())->importer);
  std::lock_guard lock(reg.mutex);
  return reg.plugins.emplace(std::string(name), std::move(i)).first->second;
}

std::vector<std::string> importer_names() {
  std::vector<std::string> names = plugins::plugin_names(BURN_PLUGIN_IMPORTER);
  {
    std::lock_guard lock(registry().mutex);
    for (const auto& [name, i] : registry().registered) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::shared_ptr<const Importer> importer_for_file(const std::string& path) {
  const std::string name = lowercase_file_name(path);
  std::string failed;
  const auto all = usable_importers(failed);
  std::shared_ptr<const Importer> best;
  size_t best_len = 0;
  for (const auto& i : all) {
    for (const auto& ext : i->extensions()) {
      // Strictly longer wins: on a tie the first in name order keeps it.
      if (name.size() > ext.size() && name.ends_with(ext) && ext.size() > best_len) {
        best = i;
        best_len = ext.size();
      }
    }
  }
  if (best) return best;
  const std::vector<uint8_t> head = file_head(path, 64);
  for (const auto& i : all) {
    if (i->sniff(head)) return i;
  }
  return nullptr;
}

std::unique_ptr<record::RecordReader> open(const std::string& path, const ImportOptions& options) {
  std::unique_ptr<record::RecordReader> reader;
  if (!options.importer.empty()) {
    const auto names = importer_names();
    const auto recorders = record::recorder_names();
    // A recorder's name ("zstd", "hdf5", "json") reads Burn's own files, so one option names any format.
    if (std::find(names.begin(), names.end(), options.importer) == names.end() &&
        std::find(recorders.begin(), recorders.end(), options.importer) != recorders.end()) {
      reader = record::open(path, record::LoadOptions{options.importer});
    } else {
      return importer(options.importer)->open(path, options);
    }
  } else if (const auto i = importer_for_file(path)) {
    return i->open(path, options);
  } else {
    // Not a foreign format: Burn's own recorder files (.bpz, .h5, .json) are importable too.
    try {
      (void)record::recorder_for_path(path);
    } catch (const RecordError& e) {
      std::string names;
      for (const auto& n : importer_names()) names += (names.empty() ? "" : ", ") + n;
      throw RecordError("import", "no importer recognises '" + path + "' (importers: " +
                                      (names.empty() ? "none found; run `burn plugins`" : names) + ") and " + e.what());
    }
    reader = record::open(path);
  }
  if (options.top_level_key.empty()) return reader;
  return select_group(std::move(reader), options.top_level_key);
}

std::unique_ptr<Model> load_model(const std::string& path, const ModelOptions& options, const std::string& name) {
  std::shared_ptr<const Importer> i = name.empty() ? importer_for_file(path) : importer(name);
  if (!i) {
    throw RecordError("import.load_model", "no importer recognises '" + path + "' (by extension or content)");
  }
  return i->load_model(path, options);
}

}  // namespace burn::import
