// The plugin host: every rejection reason names both values, discovery survives bad plugins,
// one file is loaded once, the higher score wins, BURN_PLUGIN_DISABLE skips by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "burn/tensor/device.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"

namespace {

namespace fs = std::filesystem;
using burn::plugins::PluginRecord;

// Runs before any test (and so before discovery): the test plugins' folder, plus one file in it
// named a second time so that "one file reached by two paths" is exercised by discovery itself.
const bool kEnvironmentReady = [] {
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR ":" BURN_TEST_PLUGIN_FWDTEST, 1);
  setenv("BURN_PLUGIN_DISABLE", "disabledtest, some-other", 1);
  return true;
}();

std::string canonical(const std::string& p) { return fs::canonical(p).string(); }

// The PluginError message of load(path), or "" when it loaded.
std::string load_error(const std::string& path) {
  try {
    burn::plugins::load(path);
  } catch (const burn::PluginError& e) {
    return e.what();
  }
  return {};
}

const PluginRecord* find_record(const std::vector<PluginRecord>& records, const std::string& path) {
  const std::string c = canonical(path);
  for (const auto& r : records) {
    if (r.path == c) return &r;
  }
  return nullptr;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(PluginHost, RejectsWrongAbiVersionNamingBoth) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_BADABI);
  EXPECT_NE(msg.find("ABI version 999, host expects " + std::to_string(BURN_PLUGIN_ABI_VERSION)), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("[plugins]"), std::string::npos) << msg;
  EXPECT_NE(msg.find(BURN_TEST_PLUGIN_BADABI), std::string::npos) << msg;
}

TEST(PluginHost, RejectsSmallDescriptor) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_SMALLSTRUCT);
  EXPECT_NE(msg.find("descriptor size 16 bytes, host expects at least " +
                     std::to_string(sizeof(BurnPluginDescriptor))),
            std::string::npos)
      << msg;
}

TEST(PluginHost, RejectsOtherToolchainNamingBoth) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_BADTOOLCHAIN);
  EXPECT_NE(msg.find("'msvc-19'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::string("'") + BURN_TOOLCHAIN_TAG + "'"), std::string::npos) << msg;
}

TEST(PluginHost, RejectsOtherMajorVersionNamingBoth) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_BADMAJOR);
  EXPECT_NE(msg.find("99.0.0"), std::string::npos) << msg;
  EXPECT_NE(msg.find(BURN_TENSOR_VERSION), std::string::npos) << msg;
}

TEST(PluginHost, RejectsZeroScore) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_ZEROSCORE);
  EXPECT_NE(msg.find("score 0: cannot run on this machine"), std::string::npos) << msg;
}

TEST(PluginHost, RejectsLibraryWithoutEntrySymbol) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_NOENTRY);
  EXPECT_NE(msg.find("burn_plugin_entry"), std::string::npos) << msg;
  EXPECT_NE(msg.find(BURN_TEST_PLUGIN_NOENTRY), std::string::npos) << msg;
}

TEST(PluginHost, RejectsDisabledByName) {
  const std::string msg = load_error(BURN_TEST_PLUGIN_DISABLEDTEST);
  EXPECT_NE(msg.find("disabled by BURN_PLUGIN_DISABLE"), std::string::npos) << msg;
}

TEST(PluginHost, RejectsMissingFile) {
  const std::string msg = load_error("/nonexistent/libburn-backend-nothing.so");
  EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
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
    EXPECT_NE(std::string(e.what()).find("throwing test plugin: no such device here"), std::string::npos)
        << e.what();
  }
  const auto records = burn::plugins::report();
  const PluginRecord* r = find_record(records, BURN_TEST_PLUGIN_THROWING);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->loaded);
  EXPECT_NE(r->reason.find("create() failed: throwing test plugin"), std::string::npos) << r->reason;
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
