// save/load/open: picking a recorder (by name or extension, registered or plugin), the precision
// policy, the atomic write around every recorder, and the lazy reader's generic parts.
#include "burn/record/recorder.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "burn/record/file.hpp"
#include "burn/tensor/plugin.hpp"

namespace burn::record {

// ---- precision ----

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::Keep: return "keep";
    case Precision::F32: return "f32";
    case Precision::F16: return "f16";
    case Precision::BF16: return "bf16";
    case Precision::F64: return "f64";
  }
  return "unknown";
}

Precision parse_precision(std::string_view name) {
  for (Precision p : {Precision::Keep, Precision::F32, Precision::F16, Precision::BF16, Precision::F64}) {
    if (precision_name(p) == name) return p;
  }
  throw ValueError("record.precision", "unknown precision '" + std::string(name) + "'; expected keep, f32, f16, bf16 or f64");
}

namespace {

std::optional<DType> precision_dtype(Precision p) {
  switch (p) {
    case Precision::F32: return DType::F32;
    case Precision::F16: return DType::F16;
    case Precision::BF16: return DType::BF16;
    case Precision::F64: return DType::F64;
    case Precision::Keep: break;
  }
  return std::nullopt;
}

// Float tensors to `to`, with direct loops for the common pairs (TensorData::convert goes through f64
// per element, ten times slower on a large checkpoint).
TensorData cast_float(const TensorData& t, DType to) {
  if (!is_float(t.dtype()) || t.dtype() == to) return t;
  const size_t n = static_cast<size_t>(t.num_elements());
  TensorData out(t.shape(), to);
  const uint8_t* src = t.bytes().data();
  uint8_t* dst = out.bytes().data();
  auto loop = [&](auto read, auto write) {
    for (size_t i = 0; i < n; ++i) write(i, read(i));
  };
  auto f32_at = [&](size_t i) { float v; std::memcpy(&v, src + 4 * i, 4); return v; };
  auto u16_at = [&](size_t i) { uint16_t v; std::memcpy(&v, src + 2 * i, 2); return v; };
  auto put_f32 = [&](size_t i, float v) { std::memcpy(dst + 4 * i, &v, 4); };
  auto put_u16 = [&](size_t i, uint16_t v) { std::memcpy(dst + 2 * i, &v, 2); };
  const DType from = t.dtype();
  if (from == DType::F32 && to == DType::F16) {
    loop(f32_at, [&](size_t i, float v) { put_u16(i, f32_to_f16(v)); });
  } else if (from == DType::F32 && to == DType::BF16) {
    loop(f32_at, [&](size_t i, float v) { put_u16(i, f32_to_bf16(v)); });
  } else if (from == DType::F16 && to == DType::F32) {
    loop(u16_at, [&](size_t i, uint16_t v) { put_f32(i, f16_to_f32(v)); });
  } else if (from == DType::BF16 && to == DType::F32) {
    loop(u16_at, [&](size_t i, uint16_t v) { put_f32(i, bf16_to_f32(v)); });
  } else if (from == DType::F32 && to == DType::F64) {
    loop(f32_at, [&](size_t i, float v) { const double d = v; std::memcpy(dst + 8 * i, &d, 8); });
  } else if (from == DType::F64 && to == DType::F32) {
    loop([&](size_t i) { double v; std::memcpy(&v, src + 8 * i, 8); return v; },
         [&](size_t i, double v) { put_f32(i, static_cast<float>(v)); });
  } else {
    return t.convert(to);
  }
  return out;
}

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
    if (f.value->kind() == EntryKind::Tensor && is_float(f.value->tensor().dtype()) && f.value->tensor().dtype() != to) {
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
           "), host is burn-record " + BURN_RECORD_VERSION + " (major " + std::to_string(BURN_RECORD_VERSION_MAJOR) + ")";
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
  const std::shared_ptr<void> object = plugins::create_object(
      BURN_PLUGIN_RECORDER, name, [name](void* o) { return check_recorder_object(o, name); });
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

// ---- RecordReader ----

RecordReader::~RecordReader() = default;
Recorder::~Recorder() = default;

const EntryInfo* RecordReader::find(std::string_view path) const {
  for (const auto& e : entries()) {
    if (e.path == path) return &e;
  }
  return nullptr;
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
