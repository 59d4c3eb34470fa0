// The plugin host: finds `libburn-*.so` files, checks their descriptors, keeps the accepted ones
// loaded for the life of the process and makes backends from them. See docs/plugins.md.
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <boost/filesystem.hpp>

#include "../log.hpp"
#include "elf_check.hpp"

#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "burn/tensor/version.hpp"

#ifndef BURN_PLUGIN_INSTALL_DIR
#define BURN_PLUGIN_INSTALL_DIR ""
#endif

namespace burn::plugins {
namespace {

namespace fs = boost::filesystem;
namespace dll = boost::dll;

constexpr const char* kEntrySymbol = "burn_plugin_entry";
constexpr const char* kUnavailableSymbol = "burn_plugin_unavailable_reason";

const char* kind_name(uint32_t kind) { return burn::detail::plugin_kind_name(kind); }

// Plugin strings come from foreign code: a null pointer must not crash the host.
std::string safe_str(const char* s) { return s ? std::string(s) : std::string(); }

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(sep, start), s.size());
    std::string item(s.substr(start, end - start));
    // Trim spaces so "vulkan, opencl" works.
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(std::move(item));
    start = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// Re-read on every check, so a process (or a test) may change it before loading more.
bool is_disabled(const std::string& name) {
  const char* env = std::getenv("BURN_PLUGIN_DISABLE");
  if (!env || name.empty()) return false;
  const auto names = split(env, ',');
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "libburn-backend-cpu.so" -> "cpu", so a disabled plugin is skipped before it is even opened.
std::string name_from_filename(const fs::path& p) {
  const std::string file = p.filename().string();
  const std::string prefix = "libburn-", suffix = ".so";
  if (file.size() <= prefix.size() + suffix.size() || file.rfind(prefix, 0) != 0 ||
      file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return {};
  }
  const std::string rest = file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
  for (const char* kind : {"backend-", "recorder-", "importer-", "collective-"}) {
    const std::string k(kind);
    if (rest.rfind(k, 0) == 0 && rest.size() > k.size()) return rest.substr(k.size());
  }
  return {};
}

// Leading integer of "1.2.3"; -1 when there is none.
long version_major(const std::string& v) {
  if (v.empty() || v[0] < '0' || v[0] > '9') return -1;
  return std::strtol(v.c_str(), nullptr, 10);
}

// What a system library the in-tree plugins link is, and its Debian package, for the message that it is
// missing ("" for others): a user who lacks libvulkan.so.1 learns it is the Vulkan loader.
std::string what_library_is(const std::string& soname) {
  static const std::pair<const char*, const char*> known[] = {
      {"libvulkan.so", " (the Vulkan loader; Debian: libvulkan1)"},
      {"libOpenCL.so", " (the OpenCL ICD loader; Debian: ocl-icd-libopencl1)"},
  };
  for (const auto& [prefix, what] : known)
    if (soname.rfind(prefix, 0) == 0) return what;
  return "";
}

// Why dlopen(path) just failed, from dlerror(). Boost's own error code for it is always EBADF ("Bad
// file descriptor"), which is not the cause, so it is not shown.
std::string dlopen_reason(const std::string& path) {
  const char* raw = dlerror();
  std::string why = raw ? raw : "no reason given";
  // dlerror() starts with the file it failed on: drop the plugin's own path (the caller names it).
  if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
  // A dependency that cannot be found reads "libx.so: cannot open shared object file: No such file or
  // directory", which looks as if the plugin itself were missing: name the dependency instead.
  const std::string cannot_open = ": cannot open shared object file: ";
  if (const size_t pos = why.find(cannot_open); pos != std::string::npos) {
    const std::string dep = why.substr(0, pos);
    return "needs " + dep + what_library_is(dep) + ", which cannot be opened: " + why.substr(pos + cannot_open.size());
  }
  const std::string undefined = "undefined symbol: ";
  if (why.rfind(undefined, 0) == 0) {
    const std::string symbol = why.substr(undefined.size());
    int status = -1;
    char* demangled = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
    if (status == 0 && demangled) why += std::string(" (") + demangled + ")";
    std::free(demangled);
  }
  return why;
}

std::string canonical_or_absolute(const fs::path& p) {
  boost::system::error_code ec;
  fs::path c = fs::canonical(p, ec);
  if (ec) c = fs::absolute(p, ec).lexically_normal();
  return c.string();
}

struct Entry {
  PluginRecord record;
  std::string canonical;
  std::shared_ptr<dll::shared_library> library;  // never released: the host does not unload
  const BurnPluginDescriptor* descriptor = nullptr;
  uint32_t kind = 0;                       // the descriptor's, or the .burn_plugin section's while pending
  std::optional<detail::PluginNote> note;  // the file's .burn_plugin section, when it has a valid one
  bool pending = false;  // registered from its section, not opened yet: opened when its name is first needed
  bool scored = false;   // score() asked: deferred until the plugin's name is first needed
};

class Host {
 public:
  // Loads or returns the earlier outcome of one file; empty string on success, else the reason.
  std::string load_file(const fs::path& path, bool is_explicit) {
    std::lock_guard lock(mutex_);
    return load_locked(path, is_explicit);
  }

  void discover() {
    std::lock_guard lock(mutex_);
    if (discovered_) return;
    discovered_ = true;
    searched_ = compute_search_paths();
    for (const auto& where : searched_) {
      boost::system::error_code ec;
      const fs::path p(where);
      if (fs::is_regular_file(p, ec)) {
        detail::logger().debug("plugins: trying file {}", where);
        load_locked(p, false);
        continue;
      }
      if (!fs::is_directory(p, ec)) {
        detail::logger().debug("plugins: {} does not exist, skipped", where);
        continue;
      }
      detail::logger().debug("plugins: scanning folder {}", where);
      std::vector<fs::path> candidates;
      for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        if (file.size() > 11 && file.rfind("libburn-", 0) == 0 && file.compare(file.size() - 3, 3, ".so") == 0 &&
            fs::is_regular_file(it->path(), ec)) {
          candidates.push_back(it->path());
        }
      }
      std::sort(candidates.begin(), candidates.end());  // a stable order across file systems
      for (const auto& c : candidates) load_locked(c, false);
    }
  }

  std::vector<PluginRecord> report() {
    std::lock_guard lock(mutex_);
    score_all();  // opens every pending plugin too
    std::vector<PluginRecord> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.record);
    return out;
  }

  std::vector<std::string> search_paths() {
    std::lock_guard lock(mutex_);
    return discovered_ ? searched_ : compute_search_paths();
  }

  std::vector<std::string> names(uint32_t kind) {
    std::lock_guard lock(mutex_);
    score_all(kind);
    std::vector<std::string> names;
    for (const auto& e : entries_) {
      if (e.record.selected && e.descriptor && e.kind == kind) names.push_back(e.record.name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::shared_ptr<void> create_object(uint32_t kind, std::string_view name, const ObjectCheck& check) {
    const std::string k = key(kind, std::string(name));
    for (;;) {
      std::shared_ptr<dll::shared_library> library;
      const BurnPluginDescriptor* d = nullptr;
      size_t index = 0;
      {
        std::lock_guard lock(mutex_);
        score_key(k);
        const auto it = selected_.find(k);
        if (it == selected_.end()) throw PluginError("plugins", unknown_plugin_message(kind, name));
        index = it->second;
        library = entries_[index].library;
        d = entries_[index].descriptor;
      }
      // Called without the lock: a factory may itself ask for a device (a decorator-like plugin).
      char err[1024] = {0};
      void* object = d->create(err, sizeof err);
      std::string reason;
      if (object) {
        const auto destroy = d->destroy;
        // The deleter holds the library too, so the object's code outlives every object.
        std::shared_ptr<void> result(object, [destroy, library](void* o) { destroy(o); });
        if (!check) return result;
        reason = check(object);
        if (reason.empty()) return result;
      } else {
        reason = "create() failed: ";
        reason += err[0] ? err : "the plugin gave no reason";
      }
      std::lock_guard lock(mutex_);
      reject_selected(index, reason);
      // Loop: another loaded plugin of the same name may take over; if none, the next round throws.
      if (selected_.count(k) == 0) {
        throw PluginError("plugins", std::string(kind_name(kind)) + " plugin '" + std::string(name) + "' from " +
                                         entries_[index].record.path + ": " + reason);
      }
    }
  }

 private:
  static std::string key(uint32_t kind, const std::string& name) { return std::string(kind_name(kind)) + ":" + name; }

  std::vector<std::string> compute_search_paths() const {
    std::vector<std::string> paths;
    std::set<std::string> seen;
    auto add = [&](const fs::path& p) {
      if (p.empty()) return;
      const std::string c = canonical_or_absolute(p);
      if (seen.insert(c).second) paths.push_back(c);
    };
    if (const char* env = std::getenv("BURN_PLUGIN_PATH")) {
      // Empty items are skipped: unlike $PATH they never mean the current directory.
      for (const auto& item : split(env, ':')) add(item);
    }
    boost::system::error_code ec;
    const fs::path lib = dll::this_line_location(ec);
    if (!ec && !lib.empty()) add(lib.parent_path() / "burn" / "plugins");
    ec.clear();
    const fs::path exe = dll::program_location(ec);
    if (!ec && !exe.empty()) {
      add(exe.parent_path());
      add(exe.parent_path() / ".." / "lib" / "burn" / "plugins");
    }
    if (std::string_view(BURN_PLUGIN_INSTALL_DIR).size() > 0) add(fs::path(BURN_PLUGIN_INSTALL_DIR));
    return paths;
  }

  std::string unknown_plugin_message(uint32_t kind, std::string_view name) {
    score_all(kind);
    // A plugin of that name but another kind is listed among the rejected ones when it is.
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].pending && entries_[i].record.name == name) open_entry(i);
    std::vector<std::string> found;
    std::vector<std::string> rejected;
    for (const auto& e : entries_) {
      if (e.record.selected && e.record.kind == kind_name(kind)) found.push_back(e.record.name);
      if (!e.record.loaded && e.record.name == name) {
        rejected.push_back(e.record.path + ": " + e.record.reason);
      }
    }
    std::sort(found.begin(), found.end());
    std::string msg = "no " + std::string(kind_name(kind)) + " plugin named '" + std::string(name) +
                      "'; found: " + (found.empty() ? std::string("(none)") : join(found, ", "));
    if (!rejected.empty()) msg += "; rejected: " + join(rejected, "; ");
    const auto& searched = discovered_ ? searched_ : compute_search_paths();
    msg += "; searched: " + (searched.empty() ? std::string("(nothing)") : join(searched, ":"));
    msg += "; run `burn plugins`";
    return msg;
  }

  std::string reject(Entry& e, std::string reason) {
    e.record.loaded = false;
    e.record.selected = false;
    e.record.reason = reason;
    detail::logger().warn("plugin {} rejected: {}", e.record.path, reason);
    return reason;
  }

  // A selected plugin failed at first use: drop it and promote the best remaining one of its name.
  void reject_selected(size_t index, const std::string& reason) {
    Entry& e = entries_[index];
    if (!e.record.loaded) return;  // another thread got here first
    reject(e, reason);
    if (const auto best = select_best(key(e.kind, e.record.name))) {
      detail::logger().info("plugin {} selected for '{}' after {} failed", entries_[*best].record.path, e.record.name,
                            e.record.path);
    }
  }

  std::string load_locked(const fs::path& path, bool is_explicit) {
    const std::string canonical = canonical_or_absolute(path);
    if (const auto it = by_path_.find(canonical); it != by_path_.end()) {
      const size_t index = it->second;
      detail::logger().debug("plugins: {} already seen as {}", path.string(), entries_[index].record.path);
      if (is_explicit && (entries_[index].descriptor || entries_[index].pending))
        score_key(key(entries_[index].kind, entries_[index].record.name));
      return entries_[index].record.loaded ? std::string() : entries_[index].record.reason;
    }
    // Never reached by discovery's own folder globs, but an explicit path or a wide
    // BURN_PLUGIN_PATH folder may name the host library itself.
    boost::system::error_code ec;
    if (const fs::path self = dll::this_line_location(ec); !ec && canonical_or_absolute(self) == canonical) {
      detail::logger().debug("plugins: {} is the host library, skipped", canonical);
      return is_explicit ? std::string("this is libburn-tensor itself, not a plugin") : std::string();
    }

    by_path_[canonical] = entries_.size();
    entries_.push_back(Entry{});
    Entry& e = entries_.back();
    e.canonical = canonical;
    e.record.path = canonical;
    detail::logger().debug("plugins: checking {}{}", canonical, is_explicit ? " (explicit load)" : "");

    if (!fs::exists(path, ec)) return reject(e, "no such file");
    if (const std::string n = name_from_filename(path); is_disabled(n)) {
      e.record.name = n;
      return reject(e, "disabled by BURN_PLUGIN_DISABLE");
    }

    if (fs::is_directory(path, ec)) return reject(e, "a folder, not a plugin file (folders go in BURN_PLUGIN_PATH)");
    // A truncated or foreign file is refused here: dlopen would map it, and touching a page past the
    // end of a truncated file kills the process with SIGBUS.
    detail::ElfPluginCheck elf = burn::detail::check_plugin_elf(canonical);
    if (!elf.problem.empty()) return reject(e, std::move(elf.problem));
    e.note = std::move(elf.note);
    const size_t index = entries_.size() - 1;
    if (e.note && !is_explicit) {
      // Registered now, opened when its kind and name are first needed: a program on one backend never maps
      // the others (and the libraries they link).
      e.kind = e.note->kind;
      e.record.kind = kind_name(e.kind);
      e.record.name = e.note->name;
      if (is_disabled(e.record.name)) return reject(e, "disabled by BURN_PLUGIN_DISABLE");
      e.pending = true;
      detail::logger().debug("plugins: registered {} '{}' from {} (opened when first needed)", e.record.kind,
                             e.record.name, canonical);
      return {};
    }
    if (std::string why = open_entry(index); !why.empty()) return why;
    // An explicit load answers now whether the plugin can run; discovery leaves that to first use, so a program
    // on one backend never starts the drivers of the others (PoCL and lavapipe take ~170 ms to come up).
    if (is_explicit) {
      score_key(key(entries_[index].kind, entries_[index].record.name));
      if (!entries_[index].record.loaded) return entries_[index].record.reason;
    }
    return {};
  }

  // dlopen and every descriptor check of entries_[index] (pending or just found); "" or why it was rejected.
  // The entry is looked up again after dlopen: a plugin's static initialiser may ask the host for more.
  std::string open_entry(size_t index) {
    entries_[index].pending = false;
    const std::string canonical = entries_[index].canonical;
    auto library = std::make_shared<dll::shared_library>();
    boost::system::error_code load_ec;
    library->load(fs::path(canonical), dll::load_mode::rtld_now | dll::load_mode::rtld_local, load_ec);
    Entry& e = entries_[index];
    if (load_ec) return reject(e, "dlopen failed: " + dlopen_reason(canonical));
    e.library = library;  // from here on the library stays loaded, even when rejected

    if (!library->has(kEntrySymbol)) {
      return reject(
          e, std::string("no '") + kEntrySymbol + "' symbol: not a burn plugin (BURN_BACKEND_PLUGIN defines it)");
    }
    const auto entry = library->get<const BurnPluginDescriptor*()>(kEntrySymbol);
    const BurnPluginDescriptor* d = entry();
    if (!d) return reject(e, std::string(kEntrySymbol) + "() returned a null descriptor");

    // Read only struct_size until it says the rest of the struct is there.
    if (d->struct_size < sizeof(BurnPluginDescriptor)) {
      return reject(e, "descriptor size " + std::to_string(d->struct_size) + " bytes, host expects at least " +
                           std::to_string(sizeof(BurnPluginDescriptor)));
    }
    if (d->abi_version != BURN_PLUGIN_ABI_VERSION) {
      return reject(e, "ABI version " + std::to_string(d->abi_version) + ", host expects " +
                           std::to_string(BURN_PLUGIN_ABI_VERSION));
    }
    e.record.name = safe_str(d->name);
    e.record.kind = kind_name(d->kind);
    e.record.version = safe_str(d->version);

    const std::string toolchain = safe_str(d->toolchain);
    if (toolchain != BURN_TOOLCHAIN_TAG) {
      return reject(e, "toolchain '" + toolchain + "', host expects '" + BURN_TOOLCHAIN_TAG + "'");
    }
    const std::string built_against = safe_str(d->burn_tensor_version);
    if (version_major(built_against) != BURN_TENSOR_VERSION_MAJOR) {
      return reject(e, "built against burn-tensor " + built_against + " (major " +
                           std::to_string(version_major(built_against)) + "), host is burn-tensor " +
                           BURN_TENSOR_VERSION + " (major " + std::to_string(BURN_TENSOR_VERSION_MAJOR) + ")");
    }
    if (e.record.kind == "unknown") {
      return reject(e, "kind " + std::to_string(d->kind) + ", host expects " + detail::kKnownPluginKinds);
    }
    if (d->kind == BURN_PLUGIN_BACKEND && d->op_table_hash != kOpTableHash) {
      return reject(e, "op table fingerprint " + std::to_string(d->op_table_hash) + ", host expects " +
                           std::to_string(kOpTableHash) + " (built against another op table at the same ABI version)");
    }
    if (e.record.name.empty()) return reject(e, "the descriptor has an empty name");
    if (e.note && (e.note->kind != d->kind || e.note->name != e.record.name)) {
      return reject(e, std::string("the descriptor says ") + e.record.kind + " '" + e.record.name + "' but its " +
                           BURN_PLUGIN_NOTE_SECTION + " section says " + kind_name(e.note->kind) + " '" + e.note->name +
                           "'");
    }
    if (is_disabled(e.record.name)) return reject(e, "disabled by BURN_PLUGIN_DISABLE");
    if (!d->score || !d->create || !d->destroy) {
      return reject(e, "the descriptor lacks score(), create() or destroy()");
    }
    e.descriptor = d;
    e.kind = d->kind;
    e.record.loaded = true;
    detail::logger().debug("plugins: accepted {} '{}' {} from {} (scored when first needed)", e.record.kind,
                           e.record.name, e.record.version, canonical);
    return {};
  }

  // Opens the pending plugins of `k` ("kind:name"), in discovery order.
  void open_key(const std::string& k) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].pending && key(entries_[i].kind, entries_[i].record.name) == k) open_entry(i);
  }

  // Asks score() of every accepted plugin of `k` not yet scored, rejects those that cannot run, and selects
  // among the rest (select_best).
  void score_key(const std::string& k) {
    open_key(k);
    bool changed = false;
    for (Entry& e : entries_) {
      if (e.scored || !e.record.loaded || !e.descriptor || key(e.kind, e.record.name) != k) continue;
      e.scored = true;
      changed = true;
      e.record.score = e.descriptor->score();
      if (e.record.score <= 0) {
        std::string why = "score " + std::to_string(e.record.score) + ": cannot run on this machine";
        // An optional second symbol says why (no Vulkan device, a driver that refuses); see plugin.hpp.
        if (e.library->has(kUnavailableSymbol)) {
          const char* detail = e.library->get<const char*()>(kUnavailableSymbol)();
          if (detail && *detail) why += " (" + safe_str(detail) + ")";
        }
        e.descriptor = nullptr;
        reject(e, why);
        continue;
      }
      detail::logger().debug("plugins: {} '{}' {} scored {} ({})", e.record.kind, e.record.name, e.record.version,
                             e.record.score, e.record.path);
    }
    if (changed) select_best(k);
  }

  // The one choice among the plugins of one kind and name: the highest score among those scored and still loaded
  // (ties keep the one found first: the search order is the user's preference); the others record why they lost.
  std::optional<size_t> select_best(const std::string& k) {
    const auto candidate = [&](const Entry& o) {
      return o.scored && o.record.loaded && o.descriptor && key(o.kind, o.record.name) == k;
    };
    std::optional<size_t> best;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (candidate(entries_[i]) && (!best || entries_[i].record.score > entries_[*best].record.score)) best = i;
    }
    if (!best) {
      selected_.erase(k);
      return best;
    }
    const Entry& winner = entries_[*best];
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& o = entries_[i];
      if (!candidate(o)) continue;
      o.record.selected = i == *best;
      if (o.record.selected) {
        o.record.reason.clear();
        continue;
      }
      o.record.reason = "lost to " + winner.record.path + " (score " + std::to_string(winner.record.score) +
                        (winner.record.score > o.record.score ? " > " : " = ") + std::to_string(o.record.score) + ")";
      detail::logger().info("plugin {} not selected: {}", o.record.path, o.record.reason);
    }
    selected_[k] = *best;
    return best;
  }

  // Opens the pending plugins and scores those not yet scored, of every kind when `kind` is 0.
  void score_all(uint32_t kind = 0) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].pending && (kind == 0 || entries_[i].kind == kind)) open_entry(i);
    std::set<std::string> keys;
    for (const Entry& e : entries_)
      if (!e.scored && e.record.loaded && e.descriptor && (kind == 0 || e.kind == kind))
        keys.insert(key(e.kind, e.record.name));
    for (const auto& k : keys) score_key(k);
  }

  std::recursive_mutex mutex_;
  bool discovered_ = false;
  std::vector<std::string> searched_;
  std::vector<Entry> entries_;
  std::map<std::string, size_t> by_path_;
  std::map<std::string, size_t> selected_;  // "kind:name" -> index in entries_
};

// Never destroyed: plugin code must stay mapped while any object it made may still run.
Host& host() {
  static Host* h = new Host();
  return *h;
}

}  // namespace

void load(const std::string& path) {
  const std::string reason = host().load_file(fs::path(path), true);
  if (!reason.empty()) throw PluginError("plugins", "cannot load plugin '" + path + "': " + reason);
}

void discover() { host().discover(); }

std::vector<PluginRecord> report() { return host().report(); }

std::vector<std::string> search_paths() { return host().search_paths(); }

std::vector<std::string> backend_names() { return plugin_names(BURN_PLUGIN_BACKEND); }

BackendPtr create_backend(std::string_view name) {
  return std::static_pointer_cast<Backend>(create_object(BURN_PLUGIN_BACKEND, name));
}

std::vector<std::string> plugin_names(BurnPluginKind kind) {
  host().discover();
  return host().names(kind);
}

std::shared_ptr<void> create_object(BurnPluginKind kind, std::string_view name, const ObjectCheck& check) {
  host().discover();
  return host().create_object(kind, name, check);
}

}  // namespace burn::plugins
