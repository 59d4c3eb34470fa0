// Checks, before dlopen, that a plugin file is a complete ELF shared object of this machine: dlopen
// maps a truncated file and the process dies of SIGBUS when the loader touches a missing page.
#pragma once

#include <string>

namespace burn::detail {

// "" when `path` is an ELF shared object of the host's class, byte order and machine whose headers,
// loadable segments and section header table all lie inside the file; otherwise the reason, naming
// the check, the offsets and the file size (docs/plugins.md lists them). Reads the headers only
// (pread), never maps the file. A file that cannot be opened or read is left to dlopen ("").
std::string elf_plugin_problem(const std::string& path);

}  // namespace burn::detail
