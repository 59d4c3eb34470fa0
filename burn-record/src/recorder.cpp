// save/load/open: picking a recorder (by name or extension, registered or plugin), the precision
// policy and the atomic write around every recorder.
#include "burn/record/recorder.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "burn/record/file.hpp"
#include "burn/tensor/plugin.hpp"
#include "internal.hpp"

namespace burn::record {

using detail::cast_float;
using detail::precision_dtype;

namespace {

// Converts every float tensor of the record in place.
void convert_floats(Record& r, DType to) {
  for (const auto& e : r.entries()) {
    Value& v = r.at(e.name);
    if (v.kind() == EntryKind::Group) {
      convert_floats(v.group(), to);
    } else if (v.kind() == EntryKind::Tensor && is_float(v.tensor().dtype()) && v.tensor().dtype() != to) {
      v = Value(cast_float(v.tensor(), to));
    }
  }
}

bool needs_conversion(const Record& r, DType to) {
  for (const auto& f : r.flatten()) {
    if (f.value->kind() == EntryKind::Tensor && is_float(f.value->tensor().dtype()) &&
        f.value->tensor().dtype() != to) {
      return true;
    }
  }
  return false;
}

long version_major(const char* v) {
  if (!v || *v < '0' || *v > '9') return -1;
  return std::strtol(v, nullptr, 10);
}

// Vets what a recorder plugin's create() returned before anything is called through it.
std::string check_recorder_object(void* object, std::string_view name) {
  const auto* o = static_cast<const BurnRecorderObject*>(object);
  if (o->struct_size < sizeof(BurnRecorderObject)) {
    return "recorder object of " + std::to_string(o->struct_size) + " bytes, host expects at least " +
           std::to_string(sizeof(BurnRecorderObject)) + " (not made by BURN_RECORDER_PLUGIN?)";
  }
  const std::string built = o->burn_record_version ? o->burn_record_version : "";
  if (version_major(o->burn_record_version) != BURN_RECORD_VERSION_MAJOR) {
    return "built against burn-record " + built + " (major " + std::to_string(version_major(o->burn_record_version)) +
           "), host is burn-record " + BURN_RECORD_VERSION + " (major " + std::to_string(BURN_RECORD_VERSION_MAJOR) +
           ")";
  }
  if (!o->recorder) return "create() returned no recorder";
  const std::string made = o->recorder->name();
  if (made != name) return "the plugin named '" + std::string(name) + "' made a recorder named '" + made + "'";
  return {};
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Recorder>, std::less<>> registered;
  std::map<std::string, std::shared_ptr<const Recorder>, std::less<>> plugins;  // created so far
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: plugin objects outlive static destruction
  return *r;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

// ---- registry ----

void register_recorder(std::shared_ptr<const Recorder> r) {
  if (!r) throw ValueError("record.register_recorder", "null recorder");
  const std::string name = r->name();
  std::lock_guard lock(registry().mutex);
  registry().registered[name] = std::move(r);
}

std::shared_ptr<const Recorder> recorder(std::string_view name) {
  Registry& reg = registry();
  {
    std::lock_guard lock(reg.mutex);
    if (const auto it = reg.registered.find(name); it != reg.registered.end()) return it->second;
    if (const auto it = reg.plugins.find(name); it != reg.plugins.end()) return it->second;
  }
  // Created without the lock: a plugin's factory may use burn-record itself.
  const std::shared_ptr<void> object =
      plugins::create_object(BURN_PLUGIN_RECORDER, name, [name](void* o) { return check_recorder_object(o, name); });
  // Aliasing: the Recorder pointer shares ownership of the plugin object (and so of its library).
  std::shared_ptr<const Recorder> r(object, static_cast<const BurnRecorderObject*>(object.get())->recorder);
  std::lock_guard lock(reg.mutex);
  return reg.plugins.emplace(std::string(name), std::move(r)).first->second;
}

std::vector<std::string> recorder_names() {
  std::vector<std::string> names = plugins::plugin_names(BURN_PLUGIN_RECORDER);
  {
    std::lock_guard lock(registry().mutex);
    for (const auto& [name, r] : registry().registered) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::shared_ptr<const Recorder> recorder_for_path(const std::string& path) {
  const std::string name = lowercase(file_name(path));
  std::shared_ptr<const Recorder> best;
  size_t best_len = 0;
  std::string known, failed;
  for (const auto& n : recorder_names()) {
    std::shared_ptr<const Recorder> r;
    try {
      r = recorder(n);
    } catch (const Error& e) {
      failed += "; recorder '" + n + "' is unusable: " + e.what();
      continue;
    }
    for (const auto& ext : r->extensions()) {
      known += (known.empty() ? "" : ", ") + ext + " (" + n + ")";
      const std::string x = lowercase(ext);
      // Strictly longer wins: on a tie the first in name order keeps it (registered ones included).
      if (ends_with(name, x) && x.size() > best_len) {
        best = r;
        best_len = x.size();
      }
    }
  }
  if (!best) {
    throw RecordError("record", "no recorder for the extension of '" + path + "'; known: " +
                                    (known.empty() ? std::string("(no recorder found; run `burn plugins`)") : known) +
                                    "; or name one in the options' `recorder`" + failed);
  }
  return best;
}

// ---- save / load / open ----

void save(const std::string& path, const Record& record, const SaveOptions& options) {
  const auto rec = options.recorder.empty() ? recorder_for_path(path) : recorder(options.recorder);
  Record converted;  // only when the policy changes a tensor
  Metadata metadata = record.metadata();
  const Record* source = &record;
  if (const auto to = precision_dtype(options.precision); to && needs_conversion(record, *to)) {
    converted = record;
    convert_floats(converted, *to);
    source = &converted;
  }
  metadata.format_version = kRecordFormatVersion;
  metadata.burn_version = BURN_RECORD_VERSION;
  metadata.dtype_policy = std::string(precision_name(options.precision));
  AtomicFile file(path);
  rec->write(file.path(), *source, metadata, options);
  file.commit();
}

std::unique_ptr<RecordReader> open(const std::string& path, const LoadOptions& options) {
  const auto rec = options.recorder.empty() ? recorder_for_path(path) : recorder(options.recorder);
  return rec->open(path);
}

Record load(const std::string& path, const LoadOptions& options) {
  return open(path, options)->read_all(options.float_dtype);
}

}  // namespace burn::record
