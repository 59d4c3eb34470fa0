// The plugin ABI and host. A plugin is a shared library exporting one C symbol,
// `burn_plugin_entry`, that returns a static C-layout descriptor; see docs/plugins.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "burn/tensor/backend.hpp"
#include "burn/tensor/version.hpp"

#define BURN_STRINGIFY_(x) #x
#define BURN_STRINGIFY(x) BURN_STRINGIFY_(x)

// Compiler family and major, libstdc++ dual ABI, C++ standard: a plugin must match the host's.
#if defined(__clang__)
#define BURN_COMPILER_TAG "clang-" BURN_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define BURN_COMPILER_TAG "gcc-" BURN_STRINGIFY(__GNUC__)
#else
#define BURN_COMPILER_TAG "unknown"
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define BURN_STDLIB_TAG "libstdc++-cxx11abi" BURN_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#else
#define BURN_STDLIB_TAG "stdlib-other"
#endif
#define BURN_TOOLCHAIN_TAG BURN_COMPILER_TAG ";" BURN_STDLIB_TAG ";c++" BURN_STRINGIFY(__cplusplus)

extern "C" {

enum BurnPluginKind : uint32_t {
  BURN_PLUGIN_BACKEND = 1,
  BURN_PLUGIN_RECORDER = 2,
  BURN_PLUGIN_IMPORTER = 3,
  BURN_PLUGIN_COLLECTIVE = 4  // burn-collective's Engine (collective communication: gloo)
};

struct BurnPluginDescriptor {
  uint32_t struct_size;             // sizeof(BurnPluginDescriptor) when built
  uint32_t abi_version;             // BURN_PLUGIN_ABI_VERSION when built
  uint32_t kind;                    // BurnPluginKind
  const char* name;                 // "cpu"
  const char* version;              // the plugin's own version
  const char* burn_tensor_version;  // BURN_TENSOR_VERSION when built
  const char* toolchain;            // BURN_TOOLCHAIN_TAG when built
  int32_t (*score)(void);           // 0: cannot run here; higher wins between plugins of one name
  // Returns a new object of the kind's interface (burn::Backend* for backends), or nullptr
  // after writing a NUL-terminated reason into err. Never throws.
  void* (*create)(char* err, size_t err_len);
  void (*destroy)(void* object);
  // burn::kOpTableHash when built (backends: the Backend vtable follows the op table); 0 otherwise.
  uint64_t op_table_hash;
};

typedef const BurnPluginDescriptor* (*BurnPluginEntryFn)(void);

// The plugin's kind and name in a read-only ELF section of its own, which the host reads before dlopen so
// that discovery registers the plugin without mapping it (it is opened when its name is first needed).
// Additive to the ABI above: a host that does not know the section ignores it, and a plugin without it
// is opened at discovery. The plugin macros write it; see docs/plugins.md.
#define BURN_PLUGIN_NOTE_SECTION ".burn_plugin"
#define BURN_PLUGIN_NOTE_MAGIC "burnplg"  // 7 characters and the NUL: fills `magic`
#define BURN_PLUGIN_NOTE_LAYOUT 1u
#define BURN_PLUGIN_NOTE_NAME_SIZE 64u  // the name, [A-Za-z0-9_-]+, and its NUL

struct BurnPluginNote {
  char magic[8];                          // BURN_PLUGIN_NOTE_MAGIC
  uint32_t layout;                        // BURN_PLUGIN_NOTE_LAYOUT when built
  uint32_t kind;                          // BurnPluginKind, as in the descriptor
  char name[BURN_PLUGIN_NOTE_NAME_SIZE];  // the descriptor's name, NUL-padded
};
}

namespace burn::detail {

// The note of a plugin of `kind` named `name`, at compile time; a name that is empty, too long or has a
// character outside [A-Za-z0-9_-] does not compile (the throw is not a constant expression).
constexpr BurnPluginNote plugin_note(uint32_t kind, const char* name) {
  BurnPluginNote note{};
  for (unsigned i = 0; i < sizeof note.magic; ++i) note.magic[i] = BURN_PLUGIN_NOTE_MAGIC[i];
  note.layout = BURN_PLUGIN_NOTE_LAYOUT;
  note.kind = kind;
  unsigned n = 0;
  for (; name[n] != '\0'; ++n) {
    const char c = name[n];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) throw "a plugin name is made of [A-Za-z0-9_-]";
    if (n + 1 >= BURN_PLUGIN_NOTE_NAME_SIZE) throw "a plugin name has at most 63 characters";
    note.name[n] = c;
  }
  if (n == 0) throw "a plugin name is not empty";
  return note;
}

}  // namespace burn::detail

namespace burn::plugins {

// What the host found at one path, for `burn plugins` and logs.
struct PluginRecord {
  std::string path;
  std::string name;  // empty when the descriptor could not be read
  std::string kind;  // "backend", "recorder", "importer", "collective"
  std::string version;
  int32_t score = 0;
  bool loaded = false;    // accepted; may still lose to a higher-scored plugin of the same name
  bool selected = false;  // the one used for its name
  std::string reason;     // why it was rejected or not selected
};

// Loads one plugin file now; throws PluginError with the rejection reason.
BURN_TENSOR_API void load(const std::string& path);
// Runs discovery once (idempotent): BURN_PLUGIN_PATH, the library's folder, the executable's
// folder, the install folder. Rejections are logged and recorded, never thrown.
BURN_TENSOR_API void discover();
// Everything found so far (after discover()).
BURN_TENSOR_API std::vector<PluginRecord> report();
// The folders and files searched, in order.
BURN_TENSOR_API std::vector<std::string> search_paths();
// Names of the backends available after discovery.
BURN_TENSOR_API std::vector<std::string> backend_names();
// A new backend from the selected plugin of that name; PluginError naming the known ones if none.
BURN_TENSOR_API BackendPtr create_backend(std::string_view name);

// The same for any kind, for the library that defines the kind's interface (burn-record for
// recorders): names of the selected plugins of a kind after discovery, and a new object from the
// one selected for a name. The object is what the plugin's create() returned, typed by its kind;
// the pointer's deleter calls the plugin's destroy() and holds its library. `check`, when given,
// vets the object first: a non-empty answer rejects that plugin with this reason (the object is
// destroyed, `burn plugins` shows why) and the next-best plugin of that name is tried.
using ObjectCheck = std::function<std::string(void* object)>;
BURN_TENSOR_API std::vector<std::string> plugin_names(BurnPluginKind kind);
BURN_TENSOR_API std::shared_ptr<void> create_object(BurnPluginKind kind, std::string_view name,
                                                    const ObjectCheck& check = {});

}  // namespace burn::plugins

// Optional, beside the entry point: why score() returned 0 ("no Vulkan device: ..."), shown by `burn plugins`
// after "cannot run on this machine". FN is a `std::string()` function (it may throw: the answer is then
// empty); the text is kept in a static buffer, so the symbol is not thread-safe and is only for the host.
#define BURN_PLUGIN_UNAVAILABLE_REASON(FN)                                                         \
  extern "C" __attribute__((visibility("default"))) const char* burn_plugin_unavailable_reason() { \
    static std::string reason;                                                                     \
    try {                                                                                          \
      reason = (FN)();                                                                             \
    } catch (...) {                                                                                \
      reason.clear();                                                                              \
    }                                                                                              \
    return reason.c_str();                                                                         \
  }

// The entry point every plugin macro writes (BURN_BACKEND_PLUGIN, BURN_RECORDER_PLUGIN,
// BURN_IMPORTER_PLUGIN). Before it, the kind's macro defines in an anonymous namespace
// `void* burn_plugin_make_()` (may throw) and `void burn_plugin_free_(void*) noexcept`; here score()
// and create() turn what SCORE and make throw into 0 and a message in `err`, as the ABI asks.
#define BURN_PLUGIN_ENTRY_(KIND, NAME, VERSION, SCORE, OP_TABLE_HASH)                                   \
  namespace {                                                                                           \
  int32_t burn_plugin_score_() noexcept {                                                               \
    try {                                                                                               \
      return static_cast<int32_t>((SCORE)());                                                           \
    } catch (...) {                                                                                     \
      return 0;                                                                                         \
    }                                                                                                   \
  }                                                                                                     \
  void* burn_plugin_create_(char* err, size_t err_len) noexcept {                                       \
    try {                                                                                               \
      return burn_plugin_make_();                                                                       \
    } catch (const std::exception& e) {                                                                 \
      if (err && err_len) {                                                                             \
        std::snprintf(err, err_len, "%s", e.what());                                                    \
      }                                                                                                 \
    } catch (...) {                                                                                     \
      if (err && err_len) {                                                                             \
        std::snprintf(err, err_len, "unknown exception");                                               \
      }                                                                                                 \
    }                                                                                                   \
    return nullptr;                                                                                     \
  }                                                                                                     \
  /* `used`: nothing refers to it; the host reads it from the file. */                                  \
  __attribute__((section(BURN_PLUGIN_NOTE_SECTION), used)) constexpr BurnPluginNote burn_plugin_note_ = \
      burn::detail::plugin_note(KIND, NAME);                                                            \
  const BurnPluginDescriptor burn_plugin_descriptor_ = {sizeof(BurnPluginDescriptor),                   \
                                                        BURN_PLUGIN_ABI_VERSION,                        \
                                                        KIND,                                           \
                                                        NAME,                                           \
                                                        VERSION,                                        \
                                                        BURN_TENSOR_VERSION,                            \
                                                        BURN_TOOLCHAIN_TAG,                             \
                                                        &burn_plugin_score_,                            \
                                                        &burn_plugin_create_,                           \
                                                        &burn_plugin_free_,                             \
                                                        OP_TABLE_HASH};                                 \
  }                                                                                                     \
  extern "C" __attribute__((visibility("default"))) const BurnPluginDescriptor* burn_plugin_entry() {   \
    return &burn_plugin_descriptor_;                                                                    \
  }

// The make and free of a plugin kind whose create() returns a struct {struct_size, version the plugin
// was built against, owned object} (BurnRecorderObject, BurnImporterObject, BurnCollectiveObject), then the
// entry point.
#define BURN_WRAPPED_OBJECT_PLUGIN_(KIND, NAME, VERSION, FACTORY, SCORE, OBJECT, INTERFACE, FIELD, BUILT_VERSION) \
  namespace {                                                                                                     \
  void* burn_plugin_make_() {                                                                                     \
    std::unique_ptr<INTERFACE> made = (FACTORY)();                                                                \
    auto* o = new OBJECT{sizeof(OBJECT), BUILT_VERSION, nullptr};                                                 \
    o->FIELD = made.release();                                                                                    \
    return static_cast<void*>(o);                                                                                 \
  }                                                                                                               \
  void burn_plugin_free_(void* p) noexcept {                                                                      \
    auto* o = static_cast<OBJECT*>(p);                                                                            \
    delete o->FIELD;                                                                                              \
    delete o;                                                                                                     \
  }                                                                                                               \
  }                                                                                                               \
  BURN_PLUGIN_ENTRY_(KIND, NAME, VERSION, SCORE, 0)

// Writes `burn_plugin_entry` for a backend plugin. FACTORY: a callable returning
// std::unique_ptr<burn::Backend> (may throw); SCORE: a callable returning int32_t (may throw: 0).
#define BURN_BACKEND_PLUGIN(NAME, VERSION, FACTORY, SCORE)                            \
  namespace {                                                                         \
  void* burn_plugin_make_() {                                                         \
    std::unique_ptr<burn::Backend> made = (FACTORY)();                                \
    return static_cast<void*>(made.release());                                        \
  }                                                                                   \
  void burn_plugin_free_(void* p) noexcept { delete static_cast<burn::Backend*>(p); } \
  }                                                                                   \
  BURN_PLUGIN_ENTRY_(BURN_PLUGIN_BACKEND, NAME, VERSION, SCORE, burn::kOpTableHash)
