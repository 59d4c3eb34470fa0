// Checks, before dlopen, that a plugin file is a complete ELF shared object of this machine: dlopen
// maps a truncated file and the process dies of SIGBUS when the loader touches a missing page. The
// same reading finds the plugin's kind and name in its .burn_plugin section, so the host may register
// it without opening it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace burn::detail {

// "backend", "recorder", "importer", "collective"; "unknown" for any other BurnPluginKind value.
const char* plugin_kind_name(uint32_t kind);
// The kinds a host knows, for messages: "1 (backend), 2 (recorder), 3 (importer) or 4 (collective)".
extern const char* const kKnownPluginKinds;

// What the .burn_plugin section (BurnPluginNote) of a plugin file says.
struct PluginNote {
  uint32_t kind = 0;  // a known BurnPluginKind
  std::string name;   // [A-Za-z0-9_-]+
};

struct ElfPluginCheck {
  // "" when `path` is an ELF shared object of the host's class, byte order and machine whose headers,
  // loadable segments and section header table all lie inside the file, and whose .burn_plugin section,
  // if any, is whole and valid; otherwise the reason, naming the check, the offsets and the file size
  // (docs/plugins.md lists them).
  std::string problem;
  // The valid .burn_plugin section; nothing when the file has none (a hand-written plugin) or one of a
  // newer layout than this host reads.
  std::optional<PluginNote> note;
};

// Reads the headers only (pread), never maps the file. A file that cannot be opened or read is left
// to dlopen (no problem, no note).
ElfPluginCheck check_plugin_elf(const std::string& path);

}  // namespace burn::detail
