// Truncated and foreign plugin files are refused before dlopen, with a reason naming the check, the
// offsets and the file size, and the real plugins still load. A partial copy used to kill every
// program at start-up with SIGBUS inside dlopen. Every in-tree plugin of the build tree's
// plugin folder (backends, recorders, importers) is cut at many offsets: the usual sizes, every
// header boundary and 30 spread offsets.
#include <gtest/gtest.h>

#include <elf.h>
#include <link.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "burn/tensor/plugin.hpp"
#include "plugin_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn_test;
using Ehdr = ElfW(Ehdr);
using Phdr = ElfW(Phdr);
using Shdr = ElfW(Shdr);

// Runs before any test: discovery then finds exactly the build tree's plugins (next to libburn-tensor),
// and the hundreds of rejections are not each logged as a warning.
const bool kEnvironmentReady = [] {
  unsetenv("BURN_PLUGIN_PATH");
  unsetenv("BURN_PLUGIN_DISABLE");
  setenv("BURN_LOG", "error", 0);
  return true;
}();

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The in-tree plugins: every libburn-*.so of the build tree's plugin folder, in name order.
std::vector<fs::path> in_tree_plugins() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(BURN_PLUGIN_BUILD_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libburn-", 0) == 0 && e.path().extension() == ".so") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Where a cut is most likely to catch a check out: the usual sizes, every header boundary (just
// before, at and after each table and segment end), and 30 offsets spread over the file.
std::vector<uint64_t> cut_offsets(const std::string& bytes) {
  const uint64_t size = bytes.size();
  std::set<uint64_t> cuts = {0,    1,     3,       4,        15,       16,      17, 40, sizeof(Ehdr) - 1, sizeof(Ehdr),
                             4096, 65536, 1000000, 1u << 20, 4u << 20, size - 1};
  Ehdr eh{};
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (uint64_t k = 0; k <= eh.e_phnum; ++k) {
    const uint64_t at = eh.e_phoff + k * sizeof(Phdr);
    cuts.insert({at - 1, at, at + 1});
  }
  for (uint64_t k = 0; k < eh.e_phnum; ++k) {
    Phdr ph{};
    std::memcpy(&ph, bytes.data() + eh.e_phoff + k * sizeof(Phdr), sizeof ph);
    if (ph.p_filesz == 0) continue;
    cuts.insert({ph.p_offset, ph.p_offset + 1, ph.p_offset + ph.p_filesz - 1, ph.p_offset + ph.p_filesz});
  }
  for (uint64_t k :
       {uint64_t{0}, uint64_t{1}, uint64_t{eh.e_shnum} / 2, uint64_t{eh.e_shnum} - 1, uint64_t{eh.e_shnum}}) {
    const uint64_t at = eh.e_shoff + k * sizeof(Shdr);
    cuts.insert({at - 1, at, at + 1});
  }
  for (uint64_t i = 1; i <= 30; ++i) cuts.insert(size * i / 31);
  std::vector<uint64_t> out;
  for (uint64_t c : cuts) {
    if (c < size) out.push_back(c);  // the set may hold wrapped values from a 0 offset: they are >= size
  }
  return out;
}

// The reason for a file of `cut` bytes: no header below 4 bytes, a short header below 64, else a
// truncated table or segment; each names the file size.
void expect_truncation_refused(const std::string& path, uint64_t cut, const std::string& plugin) {
  const std::string e = load_error(path);
  const std::string where = plugin + " cut to " + std::to_string(cut) + " bytes: ";
  ASSERT_EQ(e.rfind(rejection(path, ""), 0), 0u) << where << e;
  const std::string reason = e.substr(rejection(path, "").size());
  if (cut < SELFMAG) {
    EXPECT_EQ(reason, "not a shared library: the file has no ELF header") << where;
  } else if (cut < sizeof(Ehdr)) {
    EXPECT_EQ(reason, "truncated ELF file: the file is " + std::to_string(cut) + " bytes, shorter than the " +
                          std::to_string(sizeof(Ehdr)) + "-byte ELF header")
        << where;
  } else {
    EXPECT_EQ(reason.rfind("truncated ELF file: ", 0), 0u) << where << reason;
    EXPECT_NE(reason.find(", past the end of the file (" + std::to_string(cut) + " bytes)"), std::string::npos)
        << where << reason;
  }
}

TEST(PluginElf, EveryCutOfEveryInTreePluginIsRefusedAndTheRealPluginsStillLoad) {
  const auto plugins = in_tree_plugins();
  std::set<std::string> kinds;
  for (const auto& p : plugins) kinds.insert(p.filename().string().substr(8, p.filename().string().find('-', 8) - 8));
  ASSERT_TRUE(kinds.count("backend") && kinds.count("recorder") && kinds.count("importer"))
      << "expected backends, recorders and importers in " << BURN_PLUGIN_BUILD_DIR;

  const ScratchDir scratch;
  size_t refused = 0;
  for (const auto& plugin : plugins) {
    const std::string bytes = read_file(plugin);
    ASSERT_GT(bytes.size(), sizeof(Ehdr)) << plugin;
    const std::string stem = plugin.stem().string();
    // One copy per plugin, cut shorter and shorter in place; each cut gets a new name, since the host
    // remembers a path's outcome.
    fs::path current = scratch.dir / (stem + "-copy.so");
    fs::copy_file(plugin, current);
    auto cuts = cut_offsets(bytes);
    std::reverse(cuts.begin(), cuts.end());
    for (uint64_t cut : cuts) {
      fs::resize_file(current, cut);
      const fs::path next = scratch.dir / (stem + "-cut-" + std::to_string(cut) + ".so");
      fs::rename(current, next);
      current = next;
      expect_truncation_refused(next.string(), cut, plugin.filename().string());
      if (HasFatalFailure()) return;
      ++refused;
    }
    EXPECT_GE(cuts.size(), 40u) << plugin;
  }
  EXPECT_GE(refused, 40 * plugins.size());

  // Discovery after all of that: every in-tree plugin passes the ELF checks (complete files are not
  // refused by them) and the cpu backend is selected.
  burn::plugins::discover();
  const auto records = burn::plugins::report();
  for (const auto& plugin : plugins) {
    const PluginRecord* r = find_record(records, plugin.string());
    ASSERT_NE(r, nullptr) << plugin << " was not found by discovery";
    EXPECT_EQ(r->reason.find("ELF"), std::string::npos) << plugin << ": " << r->reason;
    EXPECT_EQ(r->reason.find("not a shared library"), std::string::npos) << plugin << ": " << r->reason;
  }
  EXPECT_TRUE(contains(burn::plugins::backend_names(), "cpu"));
  EXPECT_FALSE(burn::plugins::plugin_names(BURN_PLUGIN_RECORDER).empty());
  EXPECT_FALSE(burn::plugins::plugin_names(BURN_PLUGIN_IMPORTER).empty());
}

// The issue's own reproduction, as a user runs it: `burn plugins` with a folder of partial copies (a
// backend and a recorder, cut at 4 KB, 64 KB, 1 MB and 4 MB) lists each as rejected with its reason,
// still selects the real cpu plugin, and exits 0.
TEST(PluginElf, BurnPluginsListsPartialCopiesAsRejectedAndKeepsTheRealOnes) {
  const ScratchDir scratch;
  std::vector<std::string> cut_files;
  for (const char* name : {"libburn-backend-cpu.so", "libburn-recorder-hdf5.so"}) {
    const fs::path plugin = fs::path(BURN_PLUGIN_BUILD_DIR) / name;
    if (!fs::exists(plugin)) continue;
    const std::string bytes = read_file(plugin);
    for (uint64_t cut : {uint64_t{4096}, uint64_t{65536}, uint64_t{1000000}, uint64_t{4u << 20}}) {
      if (cut >= bytes.size()) continue;
      const std::string stem = plugin.stem().string();
      cut_files.push_back(scratch.write(stem + "trunc" + std::to_string(cut) + ".so", bytes.substr(0, cut)));
    }
  }
  ASSERT_GE(cut_files.size(), 3u);
  const std::string command = "BURN_PLUGIN_PATH='" + scratch.dir.string() + "' BURN_PLUGIN_DISABLE= '" +
                              std::string(BURN_CLI) + "' plugins 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << "burn plugins died (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "):\n"
                                 << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("selected  cpu"), std::string::npos) << out;
  for (const auto& f : cut_files) {
    EXPECT_NE(out.find("  " + canonical(f) + "\n    rejected: truncated ELF file: "), std::string::npos)
        << f << " is not listed as rejected:\n"
        << out;
  }
}

// ---- headers of another machine, class or kind, and damaged headers, patched into a complete plugin ----

class PluginElfHeader : public ::testing::Test {
 protected:
  // The complete test plugin, patched by `patch` and written under a new name; load()'s message.
  template <class Patch>
  std::string load_patched(const std::string& name, Patch patch) {
    std::string bytes = good_;
    Ehdr eh{};
    std::memcpy(&eh, bytes.data(), sizeof eh);
    patch(eh, bytes);
    std::memcpy(bytes.data(), &eh, sizeof eh);
    path_ = scratch_.write(name, bytes);
    return load_error(path_);
  }
  std::string reason(const std::string& message) const {
    const std::string prefix = rejection(path_, "");
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : "unexpected message: " + message;
  }
  const std::string good_ = read_file(BURN_TEST_PLUGIN_FWDTEST);
  ScratchDir scratch_;
  std::string path_;
};

TEST_F(PluginElfHeader, TheCompleteFileStillLoads) {
  EXPECT_EQ(load_patched("libburn-backend-complete.so", [](Ehdr&, std::string&) {}), "");
}

TEST_F(PluginElfHeader, AnotherMachineIsRefusedNamingBoth) {
#if defined(__x86_64__)
  const uint16_t other = EM_AARCH64;
  const std::string want = "ELF machine 183 (AArch64), host expects 62 (x86-64)";
#elif defined(__aarch64__)
  const uint16_t other = EM_X86_64;
  const std::string want = "ELF machine 62 (x86-64), host expects 183 (AArch64)";
#else
  GTEST_SKIP() << "the expected message is written for x86-64 and AArch64 hosts";
  const uint16_t other = 0;
  const std::string want;
#endif
  const std::string e = load_patched("libburn-backend-arm.so", [&](Ehdr& eh, std::string&) { eh.e_machine = other; });
  EXPECT_EQ(reason(e), want);
  const std::string unknown =
      load_patched("libburn-backend-m9.so", [](Ehdr& eh, std::string&) { eh.e_machine = 9999; });
  EXPECT_EQ(reason(unknown).rfind("ELF machine 9999, host expects ", 0), 0u) << unknown;
}

TEST_F(PluginElfHeader, A32BitElfIsRefusedNamingBothClasses) {
  static_assert(sizeof(void*) == 8, "this test is written for a 64-bit host");
  // A genuine 32-bit shared-object header for i386, and the 64-bit plugin with its class byte changed.
  Elf32_Ehdr h32{};
  std::memcpy(h32.e_ident, ELFMAG, SELFMAG);
  h32.e_ident[EI_CLASS] = ELFCLASS32;
  h32.e_ident[EI_DATA] = ELFDATA2LSB;
  h32.e_ident[EI_VERSION] = EV_CURRENT;
  h32.e_type = ET_DYN;
  h32.e_machine = EM_386;
  h32.e_version = EV_CURRENT;
  h32.e_ehsize = sizeof h32;
  const std::string p = scratch_.write(
      "libburn-backend-i386.so", std::string(reinterpret_cast<char*>(&h32), sizeof h32) + std::string(4096, '\0'));
  EXPECT_EQ(load_error(p), rejection(p, "ELF class 1 (32-bit), host expects 2 (64-bit)"));
  const std::string e =
      load_patched("libburn-backend-c32.so", [](Ehdr& eh, std::string&) { eh.e_ident[EI_CLASS] = ELFCLASS32; });
  EXPECT_EQ(reason(e), "ELF class 1 (32-bit), host expects 2 (64-bit)");
}

TEST_F(PluginElfHeader, OtherByteOrderVersionAndTypeAreRefused) {
  EXPECT_EQ(
      reason(load_patched("libburn-backend-be.so", [](Ehdr& eh, std::string&) { eh.e_ident[EI_DATA] = ELFDATA2MSB; })),
      "ELF data encoding 2 (big-endian), host expects 1 (little-endian)");
  EXPECT_EQ(reason(load_patched("libburn-backend-v0.so", [](Ehdr& eh, std::string&) { eh.e_ident[EI_VERSION] = 0; })),
            "ELF version 0, host expects 1");
  EXPECT_EQ(reason(load_patched("libburn-backend-exec.so", [](Ehdr& eh, std::string&) { eh.e_type = ET_EXEC; })),
            "ELF type 2 (executable), host expects 3 (shared object)");
  EXPECT_EQ(reason(load_patched("libburn-backend-rel.so", [](Ehdr& eh, std::string&) { eh.e_type = ET_REL; })),
            "ELF type 1 (relocatable object), host expects 3 (shared object)");
}

TEST_F(PluginElfHeader, DamagedTablesAreRefusedWithTheirOffsets) {
  const uint64_t size = good_.size();
  EXPECT_EQ(reason(load_patched("libburn-backend-phent.so", [](Ehdr& eh, std::string&) { eh.e_phentsize = 32; })),
            "damaged ELF header: program header entries of 32 bytes, host expects 56");
  EXPECT_EQ(reason(load_patched("libburn-backend-shent.so", [](Ehdr& eh, std::string&) { eh.e_shentsize = 40; })),
            "damaged ELF header: section header entries of 40 bytes, host expects 64");
  EXPECT_EQ(reason(load_patched("libburn-backend-nophdr.so", [](Ehdr& eh, std::string&) { eh.e_phnum = 0; })),
            "the ELF file has no program headers: nothing to load");
  uint64_t phnum = 0;
  const std::string wrapped = load_patched("libburn-backend-phwrap.so", [&](Ehdr& eh, std::string&) {
    eh.e_phoff = ~uint64_t{0} - 8;
    phnum = eh.e_phnum;
  });
  EXPECT_EQ(reason(wrapped), "damaged ELF file: the program header table (offset " + std::to_string(~uint64_t{0} - 8) +
                                 " + " + std::to_string(phnum) + " x 56 bytes) ends past byte 2^64");
  const std::string far = load_patched("libburn-backend-shfar.so", [](Ehdr& eh, std::string&) { eh.e_shoff += 4096; });
  EXPECT_EQ(reason(far).rfind("truncated ELF file: the section header table ends at byte ", 0), 0u) << far;
  EXPECT_NE(far.find("past the end of the file (" + std::to_string(size) + " bytes)"), std::string::npos) << far;

  // The first loadable segment made to reach past the end, then past 2^64.
  auto first_load = [](const Ehdr& eh, std::string& bytes) -> Phdr* {
    for (uint64_t k = 0; k < eh.e_phnum; ++k) {
      auto* ph = reinterpret_cast<Phdr*>(bytes.data() + eh.e_phoff + k * sizeof(Phdr));
      if (ph->p_type == PT_LOAD && ph->p_filesz > 0) return ph;
    }
    return nullptr;
  };
  uint64_t offset = 0;
  const std::string long_segment = load_patched("libburn-backend-seg.so", [&](Ehdr& eh, std::string& bytes) {
    Phdr* ph = first_load(eh, bytes);
    ASSERT_NE(ph, nullptr);
    offset = ph->p_offset;
    ph->p_filesz = size - offset + 1;  // one byte more than the file holds
  });
  EXPECT_NE(reason(long_segment)
                .find("(PT_LOAD) ends at byte " + std::to_string(size + 1) + " (offset " + std::to_string(offset) +
                      " + " + std::to_string(size - offset + 1) + " bytes), past the end of the file (" +
                      std::to_string(size) + " bytes)"),
            std::string::npos)
      << long_segment;
  const std::string wrapped_segment = load_patched("libburn-backend-segwrap.so", [&](Ehdr& eh, std::string& bytes) {
    Phdr* ph = first_load(eh, bytes);
    ASSERT_NE(ph, nullptr);
    ph->p_offset = ~uint64_t{0};
  });
  EXPECT_EQ(reason(wrapped_segment).rfind("damaged ELF file: segment ", 0), 0u) << wrapped_segment;
  EXPECT_NE(wrapped_segment.find("(PT_LOAD) (offset 18446744073709551615 + "), std::string::npos) << wrapped_segment;
}

// ---- the .burn_plugin section (kind and name, read before dlopen), patched into a complete plugin ----

class PluginElfSection : public PluginElfHeader {
 protected:
  // The section header of .burn_plugin in `bytes`, found through the section name table.
  static Shdr* note_header(std::string& bytes) {
    Ehdr eh{};
    std::memcpy(&eh, bytes.data(), sizeof eh);
    auto* sh = reinterpret_cast<Shdr*>(bytes.data() + eh.e_shoff);
    const char* names = bytes.data() + sh[eh.e_shstrndx].sh_offset;
    for (uint64_t k = 0; k < eh.e_shnum; ++k) {
      if (std::strcmp(names + sh[k].sh_name, BURN_PLUGIN_NOTE_SECTION) == 0) return &sh[k];
    }
    return nullptr;
  }
  // load()'s reason for the plugin with its note changed by `patch`.
  template <class Patch>
  std::string patched_note(const std::string& name, Patch patch) {
    return reason(load_patched(name, [&](Ehdr&, std::string& bytes) {
      Shdr* sh = note_header(bytes);
      ASSERT_NE(sh, nullptr) << "the fwdtest plugin has no " << BURN_PLUGIN_NOTE_SECTION << " section";
      auto* note = reinterpret_cast<BurnPluginNote*>(bytes.data() + sh->sh_offset);
      patch(*sh, *note);
    }));
  }
};

TEST_F(PluginElfSection, TheMacroWritesTheDescriptorsKindAndName) {
  std::string bytes = good_;
  const Shdr* sh = note_header(bytes);
  ASSERT_NE(sh, nullptr);
  ASSERT_EQ(sh->sh_size, sizeof(BurnPluginNote));
  BurnPluginNote note{};
  std::memcpy(&note, bytes.data() + sh->sh_offset, sizeof note);
  EXPECT_EQ(std::string(note.magic), BURN_PLUGIN_NOTE_MAGIC);
  EXPECT_EQ(note.layout, BURN_PLUGIN_NOTE_LAYOUT);
  EXPECT_EQ(note.kind, BURN_PLUGIN_BACKEND);
  EXPECT_EQ(std::string(note.name), "fwdtest");
  EXPECT_EQ(sh->sh_flags & SHF_WRITE, 0u) << "the section is read-only";
}

TEST_F(PluginElfSection, ADamagedSectionIsRefusedWithItsReason) {
  const std::string damaged = "damaged .burn_plugin section: ";
  EXPECT_EQ(patched_note("libburn-backend-magic.so", [](Shdr&, BurnPluginNote& n) { n.magic[0] = 'X'; }),
            damaged + "its magic is not \"burnplg\"");
  EXPECT_EQ(patched_note("libburn-backend-layout0.so", [](Shdr&, BurnPluginNote& n) { n.layout = 0; }),
            damaged + "layout 0");
  EXPECT_EQ(patched_note("libburn-backend-kind9.so", [](Shdr&, BurnPluginNote& n) { n.kind = 9; }),
            damaged + "kind 9, host expects 1 (backend), 2 (recorder), 3 (importer) or 4 (collective)");
  EXPECT_EQ(patched_note("libburn-backend-bang.so", [](Shdr&, BurnPluginNote& n) { n.name[3] = '!'; }),
            damaged + "the name has byte 33 at 3, host expects [A-Za-z0-9_-]");
  EXPECT_EQ(patched_note("libburn-backend-empty.so", [](Shdr&, BurnPluginNote& n) { n.name[0] = '\0'; }),
            damaged + "the name is empty");
  EXPECT_EQ(patched_note("libburn-backend-nonul.so",
                         [](Shdr&, BurnPluginNote& n) { std::memset(n.name, 'a', sizeof n.name); }),
            damaged + "the name is not NUL-terminated within its 64 bytes");
  EXPECT_EQ(patched_note("libburn-backend-short.so", [](Shdr& sh, BurnPluginNote&) { sh.sh_size = 10; }),
            damaged + "10 bytes, shorter than its 16-byte header (magic, layout, kind)");
  EXPECT_EQ(patched_note("libburn-backend-half.so", [](Shdr& sh, BurnPluginNote&) { sh.sh_size = 40; }),
            damaged + "40 bytes, layout 1 is 80 bytes");
  EXPECT_EQ(patched_note("libburn-backend-nobits.so", [](Shdr& sh, BurnPluginNote&) { sh.sh_type = SHT_NOBITS; }),
            damaged + "it holds no bytes in the file (SHT_NOBITS)");
}

TEST_F(PluginElfSection, ASectionPastTheEndIsRefusedWithItsOffsets) {
  const uint64_t size = good_.size();
  uint64_t offset = 0;
  const std::string e = patched_note("libburn-backend-notefar.so", [&](Shdr& sh, BurnPluginNote&) {
    sh.sh_offset = size - 8;
    offset = sh.sh_offset;
  });
  EXPECT_EQ(e, "truncated ELF file: the .burn_plugin section ends at byte " + std::to_string(offset + 80) +
                   " (offset " + std::to_string(offset) + " + 80 bytes), past the end of the file (" +
                   std::to_string(size) + " bytes)");
  const std::string wrapped =
      patched_note("libburn-backend-notewrap.so", [](Shdr& sh, BurnPluginNote&) { sh.sh_offset = ~uint64_t{0}; });
  EXPECT_EQ(wrapped,
            "damaged ELF file: the .burn_plugin section (offset 18446744073709551615 + 80 bytes) ends past "
            "byte 2^64");
}

TEST_F(PluginElfSection, ANewerLayoutIsLeftToTheDescriptor) {
  // A host reads the layouts it knows; a plugin of a newer one is opened at discovery, as one without the section.
  EXPECT_EQ(load_patched("libburn-backend-layout2.so",
                         [](Ehdr&, std::string& bytes) {
                           Shdr* sh = note_header(bytes);
                           ASSERT_NE(sh, nullptr);
                           reinterpret_cast<BurnPluginNote*>(bytes.data() + sh->sh_offset)->layout = 2;
                         }),
            "");
}

}  // namespace
