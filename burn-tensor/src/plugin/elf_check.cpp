// The ELF checks the plugin host runs before dlopen (see elf_check.hpp and docs/plugins.md).
#include "elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "burn/tensor/plugin.hpp"

namespace burn::detail {
namespace {

// The host's own ELF flavour: its class from the pointer size, its byte order, its machine.
#if UINTPTR_MAX > 0xffffffffu
using Ehdr = Elf64_Ehdr;
using Phdr = Elf64_Phdr;
using Shdr = Elf64_Shdr;
constexpr unsigned char kHostClass = ELFCLASS64;
#else
using Ehdr = Elf32_Ehdr;
using Phdr = Elf32_Phdr;
using Shdr = Elf32_Shdr;
constexpr unsigned char kHostClass = ELFCLASS32;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;  // x32 too: its files are ELFCLASS32 for EM_X86_64
#elif defined(__i386__)
constexpr uint16_t kHostMachine = EM_386;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__arm__)
constexpr uint16_t kHostMachine = EM_ARM;
#elif defined(__riscv)
constexpr uint16_t kHostMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__powerpc__)
constexpr uint16_t kHostMachine = EM_PPC;
#elif defined(__s390__)
constexpr uint16_t kHostMachine = EM_S390;
#elif defined(__loongarch__)
constexpr uint16_t kHostMachine = EM_LOONGARCH;
#elif defined(__mips__)
constexpr uint16_t kHostMachine = EM_MIPS;
#elif defined(__sparc__)
constexpr uint16_t kHostMachine = EM_SPARCV9;
#else
constexpr uint16_t kHostMachine = EM_NONE;  // a machine not listed here: e_machine is left to dlopen
#endif

std::string machine_name(uint16_t m) {
  switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC 64";
    case EM_PPC: return "PowerPC";
    case EM_S390: return "S/390";
    case EM_LOONGARCH: return "LoongArch";
    case EM_MIPS: return "MIPS";
    case EM_SPARCV9: return "SPARC v9";
    default: return "";
  }
}

std::string numbered(uint64_t value, const std::string& name) {
  return std::to_string(value) + (name.empty() ? "" : " (" + name + ")");
}

std::string class_name(unsigned char c) { return c == ELFCLASS32 ? "32-bit" : c == ELFCLASS64 ? "64-bit" : ""; }

std::string data_name(unsigned char d) {
  return d == ELFDATA2LSB ? "little-endian" : d == ELFDATA2MSB ? "big-endian" : "";
}

std::string type_name(uint16_t t) {
  switch (t) {
    case ET_NONE: return "none";
    case ET_REL: return "relocatable object";
    case ET_EXEC: return "executable";
    case ET_DYN: return "shared object";
    case ET_CORE: return "core file";
    default: return "";
  }
}

std::string segment_type_name(uint32_t t) {
  switch (t) {
    case PT_LOAD: return "PT_LOAD";
    case PT_DYNAMIC: return "PT_DYNAMIC";
    case PT_INTERP: return "PT_INTERP";
    case PT_NOTE: return "PT_NOTE";
    case PT_PHDR: return "PT_PHDR";
    case PT_TLS: return "PT_TLS";
    case PT_GNU_EH_FRAME: return "PT_GNU_EH_FRAME";
    case PT_GNU_RELRO: return "PT_GNU_RELRO";
    case PT_GNU_PROPERTY: return "PT_GNU_PROPERTY";
    default: return "type " + std::to_string(t);
  }
}

// a + b, or nothing when it overflows 64 bits.
std::optional<uint64_t> add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// offset + count * entry, or nothing when it overflows 64 bits.
std::optional<uint64_t> table_end(uint64_t offset, uint64_t count, uint64_t entry) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, entry, &bytes)) return std::nullopt;
  return add(offset, bytes);
}

// Reads exactly `n` bytes at `offset` (retrying short reads), or returns how many it got; -1 on error.
ssize_t read_at(int fd, uint64_t offset, void* out, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, static_cast<char*>(out) + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string past_the_end(const std::string& what, uint64_t end, const std::string& extent, uint64_t size) {
  return "truncated ELF file: " + what + " ends at byte " + std::to_string(end) + " (" + extent +
         "), past the end of the file (" + std::to_string(size) + " bytes)";
}

std::string overflows(const std::string& what, const std::string& extent) {
  return "damaged ELF file: " + what + " (" + extent + ") ends past byte 2^64";
}

// "offset 1234 + 3 x 56 bytes"
std::string table_extent(uint64_t offset, uint64_t count, uint64_t entry) {
  return "offset " + std::to_string(offset) + " + " + std::to_string(count) + " x " + std::to_string(entry) + " bytes";
}

constexpr char kNoteSection[] = BURN_PLUGIN_NOTE_SECTION;

std::string damaged_note(const std::string& why) { return std::string("damaged ") + kNoteSection + " section: " + why; }

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// The .burn_plugin section `sh` (already found by name) read and validated into `note`; "" or the reason.
// A layout newer than this host's is left unread: the plugin is then opened at discovery, as one without it.
std::string read_note(int fd, uint64_t size, const Shdr& sh, std::optional<PluginNote>& note) {
  if (sh.sh_type == SHT_NOBITS) return damaged_note("it holds no bytes in the file (SHT_NOBITS)");
  const std::string extent = "offset " + std::to_string(sh.sh_offset) + " + " + std::to_string(sh.sh_size) + " bytes";
  const std::string what = std::string("the ") + kNoteSection + " section";
  const auto end = add(sh.sh_offset, sh.sh_size);
  if (!end) return overflows(what, extent);
  if (*end > size) return past_the_end(what, *end, extent, size);
  constexpr size_t kHeader = offsetof(BurnPluginNote, name);
  if (sh.sh_size < kHeader) {
    return damaged_note(std::to_string(sh.sh_size) + " bytes, shorter than its " + std::to_string(kHeader) +
                        "-byte header (magic, layout, kind)");
  }
  BurnPluginNote n{};
  const size_t want = static_cast<size_t>(std::min<uint64_t>(sh.sh_size, sizeof n));
  if (read_at(fd, sh.sh_offset, &n, want) != static_cast<ssize_t>(want)) return {};
  if (std::memcmp(n.magic, BURN_PLUGIN_NOTE_MAGIC, sizeof n.magic) != 0) {
    return damaged_note("its magic is not \"" BURN_PLUGIN_NOTE_MAGIC "\"");
  }
  if (n.layout == 0) return damaged_note("layout 0");
  if (n.layout > BURN_PLUGIN_NOTE_LAYOUT) return {};
  if (sh.sh_size != sizeof n) {
    return damaged_note(std::to_string(sh.sh_size) + " bytes, layout " + std::to_string(n.layout) + " is " +
                        std::to_string(sizeof n) + " bytes");
  }
  if (std::string(plugin_kind_name(n.kind)) == "unknown") {
    return damaged_note("kind " + std::to_string(n.kind) + ", host expects " + kKnownPluginKinds);
  }
  const char* nul = static_cast<const char*>(std::memchr(n.name, '\0', sizeof n.name));
  if (!nul)
    return damaged_note("the name is not NUL-terminated within its " + std::to_string(sizeof n.name) + " bytes");
  const std::string name(n.name, static_cast<size_t>(nul - n.name));
  if (name.empty()) return damaged_note("the name is empty");
  for (size_t i = 0; i < name.size(); ++i) {
    if (!is_name_char(name[i])) {
      return damaged_note("the name has byte " + std::to_string(static_cast<unsigned char>(name[i])) + " at " +
                          std::to_string(i) + ", host expects [A-Za-z0-9_-]");
    }
  }
  note = PluginNote{n.kind, name};
  return {};
}

// Finds the section named .burn_plugin through the section name table and reads it (read_note).
std::string find_note(int fd, uint64_t size, uint64_t shoff, uint64_t shnum, uint64_t shstrndx,
                      std::optional<PluginNote>& note) {
  if (shstrndx == SHN_UNDEF) return {};  // no section names: no note
  if (shstrndx >= shnum) {
    return "damaged ELF header: section name table index " + std::to_string(shstrndx) + ", the file has " +
           std::to_string(shnum) + " sections";
  }
  Shdr names{};
  if (read_at(fd, shoff + shstrndx * sizeof(Shdr), &names, sizeof names) != static_cast<ssize_t>(sizeof names))
    return {};
  if (names.sh_type == SHT_NOBITS) return {};
  const std::string extent =
      "offset " + std::to_string(names.sh_offset) + " + " + std::to_string(names.sh_size) + " bytes";
  const auto names_end = add(names.sh_offset, names.sh_size);
  if (!names_end) return overflows("the section name table", extent);
  if (*names_end > size) return past_the_end("the section name table", *names_end, extent, size);

  std::array<Shdr, 64> batch{};
  for (uint64_t first = 0; first < shnum; first += batch.size()) {
    const uint64_t count = std::min<uint64_t>(batch.size(), shnum - first);
    const size_t bytes = static_cast<size_t>(count) * sizeof(Shdr);
    if (read_at(fd, shoff + first * sizeof(Shdr), batch.data(), bytes) != static_cast<ssize_t>(bytes)) return {};
    for (uint64_t i = 0; i < count; ++i) {
      const Shdr& sh = batch[i];
      // The name and its NUL must lie inside the name table; a name that does not is not ours.
      if (sh.sh_name >= names.sh_size || names.sh_size - sh.sh_name < sizeof kNoteSection) continue;
      char name[sizeof kNoteSection] = {};
      if (read_at(fd, names.sh_offset + sh.sh_name, name, sizeof name) != static_cast<ssize_t>(sizeof name)) return {};
      if (std::memcmp(name, kNoteSection, sizeof name) == 0) return read_note(fd, size, sh, note);
    }
  }
  return {};
}

std::string check_file(const std::string& path, std::optional<PluginNote>& note) {
  const Fd fd(path);
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return {};  // dlopen then gives the accurate reason
  const uint64_t size = static_cast<uint64_t>(st.st_size);

  Ehdr eh{};
  const ssize_t n = read_at(fd.get(), 0, &eh, sizeof eh);
  if (n < 0) return {};
  const auto got = static_cast<uint64_t>(n);
  if (got < SELFMAG || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return "not a shared library: the file has no ELF header";
  }
  const std::string short_header = "truncated ELF file: the file is " + std::to_string(size) +
                                   " bytes, shorter than the " + std::to_string(sizeof(Ehdr)) + "-byte ELF header";
  if (got < EI_NIDENT) return short_header;
  const unsigned char cls = eh.e_ident[EI_CLASS], data = eh.e_ident[EI_DATA], version = eh.e_ident[EI_VERSION];
  if (cls != kHostClass) {
    return "ELF class " + numbered(cls, class_name(cls)) + ", host expects " +
           numbered(kHostClass, class_name(kHostClass));
  }
  if (data != kHostData) {
    return "ELF data encoding " + numbered(data, data_name(data)) + ", host expects " +
           numbered(kHostData, data_name(kHostData));
  }
  if (version != EV_CURRENT) {
    return "ELF version " + std::to_string(version) + ", host expects " + std::to_string(EV_CURRENT);
  }
  if (got < sizeof eh) return short_header;
  if (eh.e_type != ET_DYN) {
    return "ELF type " + numbered(eh.e_type, type_name(eh.e_type)) + ", host expects " +
           numbered(ET_DYN, type_name(ET_DYN));
  }
  if (kHostMachine != EM_NONE && eh.e_machine != kHostMachine) {
    return "ELF machine " + numbered(eh.e_machine, machine_name(eh.e_machine)) + ", host expects " +
           numbered(kHostMachine, machine_name(kHostMachine));
  }

  // Section 0 holds the real counts when they do not fit the header's 16-bit fields.
  uint64_t phnum = eh.e_phnum, shnum = eh.e_shnum;
  const uint64_t shoff = eh.e_shoff;
  if (shoff != 0 && eh.e_shentsize != sizeof(Shdr)) {
    return "damaged ELF header: section header entries of " + std::to_string(eh.e_shentsize) + " bytes, host expects " +
           std::to_string(sizeof(Shdr));
  }
  uint64_t shstrndx = eh.e_shstrndx;
  if (shoff != 0 && (shnum == 0 || phnum == PN_XNUM || shstrndx == SHN_XINDEX)) {
    const auto end = table_end(shoff, 1, sizeof(Shdr));
    if (!end) return overflows("the section header table", table_extent(shoff, 1, sizeof(Shdr)));
    if (*end > size) return past_the_end("the section header table", *end, table_extent(shoff, 1, sizeof(Shdr)), size);
    Shdr first{};
    if (read_at(fd.get(), shoff, &first, sizeof first) != static_cast<ssize_t>(sizeof first)) return {};
    if (shnum == 0) shnum = first.sh_size;
    if (phnum == PN_XNUM) phnum = first.sh_info;
    if (shstrndx == SHN_XINDEX) shstrndx = first.sh_link;
  }

  if (phnum == 0) return "the ELF file has no program headers: nothing to load";
  if (eh.e_phentsize != sizeof(Phdr)) {
    return "damaged ELF header: program header entries of " + std::to_string(eh.e_phentsize) + " bytes, host expects " +
           std::to_string(sizeof(Phdr));
  }
  const uint64_t phoff = eh.e_phoff;
  const std::string ph_extent = table_extent(phoff, phnum, sizeof(Phdr));
  const auto ph_end = table_end(phoff, phnum, sizeof(Phdr));
  if (!ph_end) return overflows("the program header table", ph_extent);
  if (*ph_end > size) return past_the_end("the program header table", *ph_end, ph_extent, size);

  // Every segment that holds file bytes must lie inside the file (the table is read in batches, so
  // a crafted count costs no more memory than a normal one).
  std::array<Phdr, 64> batch{};
  for (uint64_t first = 0; first < phnum; first += batch.size()) {
    const uint64_t count = std::min<uint64_t>(batch.size(), phnum - first);
    const size_t bytes = static_cast<size_t>(count) * sizeof(Phdr);
    if (read_at(fd.get(), phoff + first * sizeof(Phdr), batch.data(), bytes) != static_cast<ssize_t>(bytes)) return {};
    for (uint64_t i = 0; i < count; ++i) {
      const Phdr& ph = batch[i];
      if (ph.p_filesz == 0) continue;
      const std::string what = "segment " + std::to_string(first + i) + " (" + segment_type_name(ph.p_type) + ")";
      const std::string extent =
          "offset " + std::to_string(ph.p_offset) + " + " + std::to_string(ph.p_filesz) + " bytes";
      const auto end = add(ph.p_offset, ph.p_filesz);
      if (!end) return overflows(what, extent);
      if (*end > size) return past_the_end(what, *end, extent, size);
    }
  }

  if (shoff != 0) {
    const std::string sh_extent = table_extent(shoff, shnum, sizeof(Shdr));
    const auto sh_end = table_end(shoff, shnum, sizeof(Shdr));
    if (!sh_end) return overflows("the section header table", sh_extent);
    if (*sh_end > size) return past_the_end("the section header table", *sh_end, sh_extent, size);
    return find_note(fd.get(), size, shoff, shnum, shstrndx, note);
  }
  return {};
}

}  // namespace

const char* const kKnownPluginKinds = "1 (backend), 2 (recorder), 3 (importer) or 4 (collective)";

const char* plugin_kind_name(uint32_t kind) {
  switch (kind) {
    case BURN_PLUGIN_BACKEND: return "backend";
    case BURN_PLUGIN_RECORDER: return "recorder";
    case BURN_PLUGIN_IMPORTER: return "importer";
    case BURN_PLUGIN_COLLECTIVE: return "collective";
    default: return "unknown";
  }
}

ElfPluginCheck check_plugin_elf(const std::string& path) {
  ElfPluginCheck out;
  out.problem = check_file(path, out.note);
  if (!out.problem.empty()) out.note.reset();
  return out;
}

}  // namespace burn::detail
