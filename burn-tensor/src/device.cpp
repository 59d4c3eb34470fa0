// Device: spec parsing ("autodiff<fusion<cpu>>"), the per-process device cache and the decorator
// registry. A leaf name is a backend plugin; every outer name is a registered decorator.
#include "burn/tensor/device.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "plugin/decorator_library.hpp"

namespace burn {
namespace {

constexpr const char* kOp = "Device::get";
constexpr size_t kMaxNesting = 32;  // deeper is certainly a mistake, and keeps recursion bounded

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// The characters of an address after "scheme://": host names, IPv4, bracketed IPv6, port, path.
bool is_address_char(char c) {
  return is_name_char(c) || c == '.' || c == ':' || c == '[' || c == ']' || c == '/' || c == '@' || c == '%';
}

bool is_address(std::string_view name) { return name.find("://") != std::string_view::npos; }

bool is_valid_name(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_name_char); }

class SpecParser {
 public:
  explicit SpecParser(std::string_view spec) : s_(spec) {}

  DeviceSpec parse() {
    DeviceSpec d = parse_spec(0);
    if (pos_ != s_.size()) fail("'<' or end of spec");
    return d;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    std::string msg =
        "malformed spec '" + std::string(s_) + "': expected " + expected + " at position " + std::to_string(pos_);
    if (pos_ < s_.size()) msg += std::string(" (found '") + s_[pos_] + "')";
    throw DeviceError(kOp, msg);
  }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }

  DeviceSpec parse_spec(size_t depth) {
    skip_ws();
    const size_t start = pos_;
    while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
    if (pos_ == start) fail("a backend or decorator name");
    DeviceSpec d{std::string(s_.substr(start, pos_ - start)), {}};
    // "tcp://host:port": an address, the leaf of a decorator that takes one (remote<...>); it runs to
    // the closing '>' and keeps its own characters.
    if (s_.substr(pos_, 3) == "://") {
      pos_ += 3;
      const size_t body = pos_;
      while (pos_ < s_.size() && is_address_char(s_[pos_])) ++pos_;
      if (pos_ == body) fail("a host and port after '://'");
      d.name = std::string(s_.substr(start, pos_ - start));
      skip_ws();
      return d;
    }
    // "vulkan:1": a device of a multi-device backend; the argument stays part of the leaf's name.
    if (pos_ < s_.size() && s_[pos_] == ':') {
      const size_t colon = pos_++;
      while (pos_ < s_.size() && (is_name_char(s_[pos_]) || s_[pos_] == '.')) ++pos_;
      if (pos_ == colon + 1) fail("a device index or name after ':'");
      d.name = std::string(s_.substr(start, pos_ - start));
    }
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '<') {
      if (depth + 1 >= kMaxNesting) fail("at most " + std::to_string(kMaxNesting) + " nested names");
      ++pos_;
      d.inner.push_back(parse_spec(depth + 1));
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '>') fail("'>'");
      ++pos_;
      skip_ws();
    }
    return d;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

struct DecoratorRegistry {
  // "trace" is registered here, on first use, rather than by a static initialiser elsewhere
  // whose order relative to this registry would be unspecified.
  DecoratorRegistry() {
    factories["trace"] = [](BackendPtr inner) { return make_trace_backend(std::move(inner)); };
    factories["defaults"] = [](BackendPtr inner) { return make_defaults_backend(std::move(inner)); };
    summaries["defaults"] =
        "runs burn-tensor's composite body of every DEFAULT op over the inner backend's "
        "ops, to check the composites (burn-tensor)";
    summaries["trace"] =
        "counts every op call and logs it at debug level (BURN_LOG=debug), then forwards it "
        "(burn-tensor)";
  }
  std::mutex mutex;
  std::map<std::string, DecoratorFactory> factories;
  std::map<std::string, AddressDecoratorFactory> address_factories;
  std::map<std::string, std::string> summaries;
};

DecoratorRegistry& decorator_registry() {
  static DecoratorRegistry* r = new DecoratorRegistry();  // never destroyed: used until exit
  return *r;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "(none)" : out;
}

// nullptr when no decorator has that name.
DecoratorFactory find_decorator(const std::string& name) {
  auto& reg = decorator_registry();
  std::lock_guard lock(reg.mutex);
  const auto it = reg.factories.find(name);
  return it == reg.factories.end() ? DecoratorFactory{} : it->second;
}

DecoratorFactory require_decorator(const std::string& name, std::string_view spec) {
  if (DecoratorFactory f = find_decorator(name)) return f;
  // Not linked, or linked but dropped by --as-needed: load the component that provides it.
  const detail::DecoratorLibrary lib = detail::load_decorator_library(name);
  if (DecoratorFactory f = find_decorator(name)) return f;
  const std::string why = lib.loaded ? lib.path + " is loaded but registers no decorator '" + name + "'" : lib.error;
  throw PluginError(kOp, "unknown decorator '" + name + "' in '" + std::string(spec) +
                             "'; registered: " + join(registered_decorators()) + "; " + why);
}

// A decorator over an address ("remote" of remote<tcp://...>), loading its component when needed.
AddressDecoratorFactory require_address_decorator(const std::string& name, std::string_view spec) {
  auto find = [&]() -> AddressDecoratorFactory {
    auto& reg = decorator_registry();
    std::lock_guard lock(reg.mutex);
    const auto it = reg.address_factories.find(name);
    return it == reg.address_factories.end() ? AddressDecoratorFactory{} : it->second;
  };
  if (AddressDecoratorFactory f = find()) return f;
  const detail::DecoratorLibrary lib = detail::load_decorator_library(name);
  if (AddressDecoratorFactory f = find()) return f;
  const std::string why = lib.loaded ? lib.path + " registers no decorator '" + name + "' over an address" : lib.error;
  throw PluginError(kOp, "'" + name + "' in '" + std::string(spec) + "' takes no address; " + why);
}

BackendPtr apply_decorator(const DecoratorFactory& f, const std::string& name, BackendPtr inner) {
  BackendPtr b = f(std::move(inner));
  if (!b) throw PluginError(kOp, "decorator '" + name + "' returned no backend");
  return b;
}

// One slot per canonical spec; its own mutex lets different specs be created concurrently
// while the same spec is created once.
struct Slot {
  std::mutex mutex;
  BackendPtr backend;
};

struct DeviceCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Slot>> slots;
  std::map<const Backend*, std::string> specs;  // backend -> canonical spec, for Device::wrap
};

// Never destroyed: backends would otherwise be torn down after the plugin statics they use.
DeviceCache& device_cache() {
  static DeviceCache* c = new DeviceCache();
  return *c;
}

BackendPtr backend_for(const DeviceSpec& spec);

// "vulkan:1": the plugin's default backend picks the device through its DeviceSelector.
BackendPtr select_device(const std::string& name) {
  const size_t colon = name.find(':');
  const std::string plugin = name.substr(0, colon), arg = name.substr(colon + 1);
  BackendPtr base = backend_for(DeviceSpec{plugin, {}});
  auto* selector = static_cast<DeviceSelector*>(base->query_interface(kDeviceSelectorInterface));
  if (!selector)
    throw DeviceError(kOp, "'" + name + "': the " + plugin + " backend drives one device; use '" + plugin + "'");
  BackendPtr b = selector->select(arg);
  if (!b) throw PluginError(kOp, "'" + name + "': the " + plugin + " backend returned no device");
  return b;
}

BackendPtr backend_for(const DeviceSpec& spec) {
  const std::string canonical = spec.to_string();
  // A plugin factory that asks for its own device would otherwise deadlock on its slot.
  thread_local std::set<std::string> in_progress;
  if (in_progress.count(canonical)) {
    throw PluginError(kOp, "device '" + canonical + "' was requested again while it was being created");
  }
  auto& cache = device_cache();
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard lock(cache.mutex);
    auto& s = cache.slots[canonical];
    if (!s) s = std::make_shared<Slot>();
    slot = s;
  }
  std::lock_guard slot_lock(slot->mutex);
  if (slot->backend) return slot->backend;

  in_progress.insert(canonical);
  struct Done {
    const std::string& key;
    ~Done() { in_progress.erase(key); }
  } done{canonical};

  BackendPtr b;
  if (spec.inner.empty() && is_address(spec.name)) {
    throw DeviceError(kOp, "'" + spec.name +
                               "' is an address, not a backend: give it to a decorator that takes one, "
                               "e.g. 'remote<" +
                               spec.name + ">'");
  } else if (spec.inner.empty() && spec.name.find(':') != std::string::npos) {
    b = select_device(spec.name);
  } else if (spec.inner.empty()) {
    try {
      b = plugins::create_backend(spec.name);
    } catch (const PluginError&) {
      if (find_decorator(spec.name)) {
        throw PluginError(kOp, "'" + spec.name + "' is a decorator, not a backend: give it one to wrap, e.g. '" +
                                   spec.name + "<cpu>'");
      }
      throw;
    }
  } else if (spec.inner.front().inner.empty() && is_address(spec.inner.front().name)) {
    b = require_address_decorator(spec.name, canonical)(spec.inner.front().name);
    if (!b) throw PluginError(kOp, "decorator '" + spec.name + "' returned no backend");
  } else {
    const DecoratorFactory f = require_decorator(spec.name, canonical);
    b = apply_decorator(f, spec.name, backend_for(spec.inner.front()));
  }
  slot->backend = b;
  std::lock_guard lock(cache.mutex);
  cache.specs[b.get()] = canonical;
  return b;
}

}  // namespace

std::string DeviceSpec::to_string() const {
  std::string out = name;
  if (!inner.empty()) {
    out += '<';
    for (size_t i = 0; i < inner.size(); ++i) out += (i ? "," : "") + inner[i].to_string();
    out += '>';
  }
  return out;
}

DeviceSpec parse_device_spec(std::string_view spec) { return SpecParser(spec).parse(); }

Device Device::get(std::string_view spec) { return Device(backend_for(parse_device_spec(spec))); }

Device Device::default_device() {
  const char* env = std::getenv("BURN_DEVICE");
  return get(env && *env ? std::string_view(env) : std::string_view("cpu"));
}

Device Device::from_backend(BackendPtr backend) {
  if (!backend) throw DeviceError("Device::from_backend", "the backend is null");
  return Device(std::move(backend));
}

Device Device::wrap(std::string_view decorator) const {
  const std::string deco(decorator);
  if (!is_valid_name(deco)) {
    throw DeviceError("Device::wrap", "malformed decorator name '" + deco + "': expected [A-Za-z0-9_-]+");
  }
  std::string spec;
  {
    auto& cache = device_cache();
    std::lock_guard lock(cache.mutex);
    const auto it = cache.specs.find(backend_.get());
    if (it != cache.specs.end()) spec = it->second;
  }
  if (!spec.empty()) return get(deco + "<" + spec + ">");
  // A device made by from_backend has no spec to cache under: wrap this very backend, uncached.
  return Device(apply_decorator(require_decorator(deco, deco + "<" + name() + ">"), deco, backend_));
}

std::string Device::name() const { return backend_ ? backend_->name() : "none"; }

void register_decorator(const std::string& name, DecoratorFactory factory, std::string summary) {
  if (!is_valid_name(name)) {
    throw ValueError("register_decorator", "malformed decorator name '" + name + "': expected [A-Za-z0-9_-]+");
  }
  if (!factory) throw ValueError("register_decorator", "empty factory for decorator '" + name + "'");
  auto& reg = decorator_registry();
  std::lock_guard lock(reg.mutex);
  reg.factories[name] = std::move(factory);  // re-registering replaces: the last one linked wins
  reg.summaries[name] = std::move(summary);
}

void register_address_decorator(const std::string& name, AddressDecoratorFactory factory, std::string summary) {
  if (!is_valid_name(name)) {
    throw ValueError("register_address_decorator", "malformed decorator name '" + name + "': expected [A-Za-z0-9_-]+");
  }
  if (!factory) throw ValueError("register_address_decorator", "empty factory for decorator '" + name + "'");
  auto& reg = decorator_registry();
  std::lock_guard lock(reg.mutex);
  reg.address_factories[name] = std::move(factory);
  reg.summaries[name] = std::move(summary);
}

std::vector<std::string> registered_address_decorators() {
  auto& reg = decorator_registry();
  std::lock_guard lock(reg.mutex);
  std::vector<std::string> names;
  for (const auto& [name, f] : reg.address_factories) names.push_back(name);
  return names;
}

std::string decorator_summary(const std::string& name) {
  auto& reg = decorator_registry();
  std::lock_guard lock(reg.mutex);
  const auto it = reg.summaries.find(name);
  return it == reg.summaries.end() ? std::string() : it->second;
}

std::vector<std::string> registered_decorators() {
  auto& reg = decorator_registry();
  std::lock_guard lock(reg.mutex);
  std::vector<std::string> names;
  for (const auto& [name, f] : reg.factories) names.push_back(name);
  return names;
}

}  // namespace burn
