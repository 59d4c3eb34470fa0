// The plugin host: every rejection reason names the file and both values (exact messages, as
// `burn plugins` and load() show them), discovery survives bad plugins,
// one file is loaded once, the higher score wins, BURN_PLUGIN_DISABLE skips by name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "burn/tensor/device.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"
#include "plugin_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using burn::plugins::PluginRecord;
using namespace burn_test;

// Runs before any test (and so before discovery): the test plugins' folder, plus one file in it
// named a second time so that "one file reached by two paths" is exercised by discovery itself.
const bool kEnvironmentReady = [] {
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR ":" BURN_TEST_PLUGIN_FWDTEST, 1);
  setenv("BURN_PLUGIN_DISABLE", "disabledtest, some-other", 1);
  return true;
}();

TEST(PluginHost, RejectsWrongAbiVersionNamingBoth) {
  EXPECT_EQ(
      load_error(BURN_TEST_PLUGIN_BADABI),
      rejection(BURN_TEST_PLUGIN_BADABI, "ABI version 999, host expects " + std::to_string(BURN_PLUGIN_ABI_VERSION)));
}

TEST(PluginHost, RejectsSmallDescriptor) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_SMALLSTRUCT),
            rejection(BURN_TEST_PLUGIN_SMALLSTRUCT, "descriptor size 16 bytes, host expects at least " +
                                                        std::to_string(sizeof(BurnPluginDescriptor))));
}

TEST(PluginHost, RejectsOtherToolchainNamingBoth) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_BADTOOLCHAIN),
            rejection(BURN_TEST_PLUGIN_BADTOOLCHAIN,
                      std::string("toolchain 'msvc-19', host expects '") + BURN_TOOLCHAIN_TAG + "'"));
}

TEST(PluginHost, RejectsOtherMajorVersionNamingBoth) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_BADMAJOR),
            rejection(BURN_TEST_PLUGIN_BADMAJOR, "built against burn-tensor 99.0.0 (major 99), host is burn-tensor " +
                                                     std::string(BURN_TENSOR_VERSION) + " (major " +
                                                     std::to_string(BURN_TENSOR_VERSION_MAJOR) + ")"));
}

TEST(PluginHost, RejectsZeroScore) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_ZEROSCORE),
            rejection(BURN_TEST_PLUGIN_ZEROSCORE, "score 0: cannot run on this machine"));
}

TEST(PluginHost, AZeroScoreCarriesThePluginsReasonWhenItGivesOne) {
  EXPECT_EQ(
      load_error(BURN_TEST_PLUGIN_ZEROREASON),
      rejection(BURN_TEST_PLUGIN_ZEROREASON, "score 0: cannot run on this machine (no test device on this machine)"));
}

TEST(PluginHost, RejectsLibraryWithoutEntrySymbol) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_NOENTRY),
            rejection(BURN_TEST_PLUGIN_NOENTRY,
                      "no 'burn_plugin_entry' symbol: not a burn plugin (BURN_BACKEND_PLUGIN defines it)"));
}

// dlopen failures: the reason is dlerror()'s, without the plugin's path repeated, Boost's unrelated
// errno ("Bad file descriptor") or a stray ')'.
TEST(PluginHost, RejectsNonElfFile) {
  const ScratchDir scratch;
  const std::string text = scratch.write("libburn-backend-text.so", "this is not a shared library\n");
  EXPECT_EQ(load_error(text), rejection(text, "not a shared library: the file has no ELF header"));
  const std::string empty = scratch.write("libburn-backend-empty.so", "");
  EXPECT_EQ(load_error(empty), rejection(empty, "not a shared library: the file has no ELF header"));
}

TEST(PluginHost, RejectsElfFileThatIsNotALibrary) {
  // The start of an ELF header and nothing else: refused before dlopen (plugin_elf_test.cpp has the rest).
  const ScratchDir scratch;
  const std::string header = scratch.write("libburn-backend-header.so", std::string("\x7f"
                                                                                    "ELF\x02\x01\x01",
                                                                                    7));
  EXPECT_EQ(load_error(header),
            rejection(header, "truncated ELF file: the file is 7 bytes, shorter than the 64-byte ELF header"));
}

TEST(PluginHost, RejectsFolder) {
  const ScratchDir scratch;
  const std::string dir = scratch.dir.string();
  EXPECT_EQ(load_error(dir), rejection(dir, "a folder, not a plugin file (folders go in BURN_PLUGIN_PATH)"));
}

TEST(PluginHost, RejectsPluginWhoseDependencyIsMissingNamingTheDependency) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_MISSINGDEP),
            rejection(BURN_TEST_PLUGIN_MISSINGDEP,
                      "dlopen failed: needs libburn-test-plugin-dep.so, which cannot be opened: No such file or "
                      "directory"));
}

TEST(PluginHost, RejectsPluginWithUndefinedSymbolNamingItDemangled) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_UNDEFSYM),
            rejection(BURN_TEST_PLUGIN_UNDEFSYM,
                      "dlopen failed: undefined symbol: _ZN9burn_test9dep_valueEv (burn_test::dep_value())"));
}

TEST(PluginHost, RejectsDisabledByName) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_DISABLEDTEST),
            rejection(BURN_TEST_PLUGIN_DISABLEDTEST, "disabled by BURN_PLUGIN_DISABLE"));
}

TEST(PluginHost, RejectsMissingFile) {
  EXPECT_EQ(load_error("/nonexistent/libburn-backend-nothing.so"),
            rejection("/nonexistent/libburn-backend-nothing.so", "no such file"));
}

TEST(PluginHost, SecondLoadOfRejectedFileThrowsTheSameReason) {
  const std::string first = load_error(BURN_TEST_PLUGIN_BADABI);
  const std::string second = load_error(BURN_TEST_PLUGIN_BADABI);
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, second);
}

TEST(PluginHost, SameFileByTwoPathsIsLoadedOnce) {
  const fs::path file(BURN_TEST_PLUGIN_FWDTEST);
  const std::string other_spelling = (file.parent_path() / "." / file.filename()).string();
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_FWDTEST), "");
  EXPECT_EQ(load_error(other_spelling), "");
  burn::plugins::discover();  // also reaches it through the folder and the file in BURN_PLUGIN_PATH
  const auto records = burn::plugins::report();
  const std::string c = canonical(BURN_TEST_PLUGIN_FWDTEST);
  EXPECT_EQ(std::count_if(records.begin(), records.end(), [&](const PluginRecord& r) { return r.path == c; }), 1);
}

TEST(PluginHost, DiscoveryKeepsGoodPluginsAndRecordsReasons) {
  burn::plugins::discover();
  burn::plugins::discover();  // idempotent
  const auto records = burn::plugins::report();

  const PluginRecord* badabi = find_record(records, BURN_TEST_PLUGIN_BADABI);
  ASSERT_NE(badabi, nullptr);
  EXPECT_FALSE(badabi->loaded);
  EXPECT_FALSE(badabi->selected);
  EXPECT_NE(badabi->reason.find("ABI version 999"), std::string::npos) << badabi->reason;

  const PluginRecord* badtable = find_record(records, BURN_TEST_PLUGIN_BADTABLE);
  ASSERT_NE(badtable, nullptr);
  EXPECT_FALSE(badtable->loaded);
  EXPECT_NE(badtable->reason.find("op table fingerprint 12345, host expects " + std::to_string(burn::kOpTableHash)),
            std::string::npos)
      << badtable->reason;

  const PluginRecord* zero = find_record(records, BURN_TEST_PLUGIN_ZEROSCORE);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->name, "zeroscore");
  EXPECT_NE(zero->reason.find("score 0"), std::string::npos) << zero->reason;

  const PluginRecord* noentry = find_record(records, BURN_TEST_PLUGIN_NOENTRY);
  ASSERT_NE(noentry, nullptr);
  EXPECT_FALSE(noentry->loaded);

  // What `burn plugins` prints under "reasons:" is the record's reason, as load() words it.
  const PluginRecord* missingdep = find_record(records, BURN_TEST_PLUGIN_MISSINGDEP);
  ASSERT_NE(missingdep, nullptr);
  EXPECT_FALSE(missingdep->loaded);
  EXPECT_EQ(missingdep->reason,
            "dlopen failed: needs libburn-test-plugin-dep.so, which cannot be opened: No such file or directory");

  const PluginRecord* disabled = find_record(records, BURN_TEST_PLUGIN_DISABLEDTEST);
  ASSERT_NE(disabled, nullptr);
  EXPECT_EQ(disabled->reason, "disabled by BURN_PLUGIN_DISABLE");

  // Two plugins named "fwdtest": the higher score is selected, the other says why not.
  const PluginRecord* low = find_record(records, BURN_TEST_PLUGIN_FWDTEST);
  const PluginRecord* high = find_record(records, BURN_TEST_PLUGIN_FWDTEST2);
  ASSERT_NE(low, nullptr);
  ASSERT_NE(high, nullptr);
  EXPECT_TRUE(low->loaded);
  EXPECT_FALSE(low->selected);
  EXPECT_TRUE(high->selected);
  EXPECT_EQ(high->score, 2);
  EXPECT_EQ(low->reason, "lost to " + canonical(BURN_TEST_PLUGIN_FWDTEST2) + " (score 2 > 1)");
  EXPECT_EQ(low->kind, "backend");
  EXPECT_EQ(low->version, "0.0.1");

  const auto names = burn::plugins::backend_names();
  EXPECT_TRUE(contains(names, "fwdtest"));
  EXPECT_FALSE(contains(names, "badabi"));
  EXPECT_FALSE(contains(names, "zeroscore"));
  EXPECT_FALSE(contains(names, "disabledtest"));
}

TEST(PluginHost, SearchPathsStartWithBurnPluginPathThenTheExecutablesFolder) {
  const auto paths = burn::plugins::search_paths();
  ASSERT_GE(paths.size(), 2u);
  EXPECT_EQ(paths[0], canonical(BURN_TEST_PLUGIN_DIR));
  EXPECT_EQ(paths[1], canonical(BURN_TEST_PLUGIN_FWDTEST));
  const fs::path exe_dir = fs::canonical("/proc/self/exe").parent_path();
  EXPECT_TRUE(contains(paths, exe_dir.string()));
  EXPECT_TRUE(contains(paths, (exe_dir.parent_path() / "lib" / "burn" / "plugins").lexically_normal().string()) ||
              !fs::exists(exe_dir.parent_path() / "lib" / "burn" / "plugins"));
}

TEST(PluginHost, ThrowingFactoryIsRejectedAtFirstUseWithItsMessage) {
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_THROWING), "");  // load() does not create
  try {
    burn::plugins::create_backend("throwing");
    FAIL() << "create_backend(\"throwing\") should throw";
  } catch (const burn::PluginError& e) {
    EXPECT_EQ(std::string(e.what()), "[plugins] backend plugin 'throwing' from " +
                                         canonical(BURN_TEST_PLUGIN_THROWING) +
                                         ": create() failed: throwing test plugin: no such device here");
  }
  const auto records = burn::plugins::report();
  const PluginRecord* r = find_record(records, BURN_TEST_PLUGIN_THROWING);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->loaded);
  EXPECT_EQ(r->reason, "create() failed: throwing test plugin: no such device here");
  // Asking again says it is gone and why.
  try {
    burn::plugins::create_backend("throwing");
    FAIL() << "create_backend(\"throwing\") should throw again";
  } catch (const burn::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no backend plugin named 'throwing'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no such device here"), std::string::npos) << msg;
  }
}

TEST(PluginHost, UnknownBackendListsWhatWasFoundAndSearched) {
  try {
    burn::plugins::create_backend("nope");
    FAIL() << "create_backend(\"nope\") should throw";
  } catch (const burn::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no backend plugin named 'nope'; found: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("fwdtest"), std::string::npos) << msg;
    EXPECT_NE(msg.find("searched: " + canonical(BURN_TEST_PLUGIN_DIR)), std::string::npos) << msg;
    EXPECT_NE(msg.find("run `burn plugins`"), std::string::npos) << msg;
  }
}

// Needs the in-tree cpu plugin (lib/burn/plugins/libburn-backend-cpu.so).
TEST(PluginHost, CpuIsFoundNextToTheLibraryWithoutEnvironment) {
  EXPECT_TRUE(contains(burn::plugins::backend_names(), "cpu"))
      << "the cpu plugin was not found; run `burn plugins` to see why";
}

// Needs the cpu plugin: fwdtest forwards to Device::get("cpu") from inside its factory.
TEST(PluginHost, GoodPluginCreatesAForwardingBackend) {
  const burn::BackendPtr b = burn::plugins::create_backend("fwdtest");
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->name().find("fwdtest"), std::string::npos) << b->name();
  // Each call makes a new backend; the library stays loaded while either lives.
  const burn::BackendPtr c = burn::plugins::create_backend("fwdtest");
  EXPECT_NE(b, c);
  EXPECT_EQ(burn::Device::get("fwdtest"), burn::Device::get(" fwdtest "));
}

}  // namespace

namespace {

// Plugins of other kinds go through the same host: listed per kind, created by kind and name.
TEST(PluginHost, RecorderKindPluginsAreListedAndCreatedByKind) {
  const auto recorders = burn::plugins::plugin_names(BURN_PLUGIN_RECORDER);
  EXPECT_TRUE(contains(recorders, "kindtest"));
  EXPECT_FALSE(contains(burn::plugins::backend_names(), "kindtest"));
  EXPECT_FALSE(contains(recorders, "fwdtest"));

  const auto records = burn::plugins::report();
  const PluginRecord* r = find_record(records, BURN_TEST_PLUGIN_KINDTEST);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, "recorder");
  EXPECT_EQ(r->version, "0.0.2");
  EXPECT_TRUE(r->selected);

  const std::shared_ptr<void> o = burn::plugins::create_object(BURN_PLUGIN_RECORDER, "kindtest");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(*static_cast<const std::string*>(o.get()), "kindtest score 2");

  try {
    burn::plugins::create_object(BURN_PLUGIN_BACKEND, "kindtest");
    FAIL() << "a recorder is not a backend";
  } catch (const burn::PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("no backend plugin named 'kindtest'"), std::string::npos) << e.what();
  }
  try {
    burn::plugins::create_object(BURN_PLUGIN_RECORDER, "nope");
    FAIL() << "no recorder named nope";
  } catch (const burn::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no recorder plugin named 'nope'; found: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("kindtest"), std::string::npos) << msg;
  }
}

// A check that refuses the object rejects that plugin with the check's reason; the next-best of the
// same name takes over, and when none is left the error names the plugin and the reason.
TEST(PluginHost, ObjectCheckRejectsAndFallsBack) {
  const auto refuse_score_2 = [](void* o) -> std::string {
    const auto& text = *static_cast<const std::string*>(o);
    return text == "kindtest score 2" ? "the check refused '" + text + "'" : "";
  };
  const std::shared_ptr<void> o = burn::plugins::create_object(BURN_PLUGIN_RECORDER, "kindtest", refuse_score_2);
  EXPECT_EQ(*static_cast<const std::string*>(o.get()), "kindtest score 1");
  const auto records = burn::plugins::report();
  const PluginRecord* high = find_record(records, BURN_TEST_PLUGIN_KINDTEST);
  const PluginRecord* low = find_record(records, BURN_TEST_PLUGIN_KINDTEST2);
  ASSERT_NE(high, nullptr);
  ASSERT_NE(low, nullptr);
  EXPECT_FALSE(high->loaded);
  EXPECT_EQ(high->reason, "the check refused 'kindtest score 2'");
  EXPECT_TRUE(low->selected);

  try {
    burn::plugins::create_object(BURN_PLUGIN_RECORDER, "kindchecked",
                                 [](void*) -> std::string { return "built against burn-record 9.0.0"; });
    FAIL() << "the only kindchecked plugin is refused";
  } catch (const burn::PluginError& e) {
    EXPECT_EQ(std::string(e.what()), "[plugins] recorder plugin 'kindchecked' from " +
                                         canonical(BURN_TEST_PLUGIN_KINDCHECKED) + ": built against burn-record 9.0.0");
  }
  EXPECT_FALSE(contains(burn::plugins::plugin_names(BURN_PLUGIN_RECORDER), "kindchecked"));
}

}  // namespace
