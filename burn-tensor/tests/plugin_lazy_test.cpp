// Discovery registers a plugin built with the plugin macros from its .burn_plugin section without opening it;
// the plugin is opened (dlopen and every descriptor check) and its score() asked only when its name is first
// needed (or the whole list is), so a program on the cpu backend neither maps the other plugins and the
// libraries they link nor starts the GPU drivers; each score() is asked once.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "burn/tensor/device.hpp"
#include "burn/tensor/plugin.hpp"
#include "plugin_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace burn_test;

// The canonical paths of the files this process maps, from /proc/self/maps.
std::set<std::string> mapped_files() {
  std::set<std::string> out;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::error_code ec;
    const fs::path p = fs::canonical(line.substr(slash), ec);
    if (!ec) out.insert(p.string());
  }
  return out;
}

// The in-tree plugins: every libburn-*.so of the build tree's plugin folder.
std::vector<std::string> in_tree_plugins() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(BURN_PLUGIN_BUILD_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libburn-", 0) == 0 && e.path().extension() == ".so") out.push_back(fs::canonical(e.path()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs first (also when the whole binary runs in one process): nothing has been opened yet.
TEST(PluginLazyOpen, ACpuDeviceMapsNoOtherPluginAndAListingMapsThemAll) {
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR, 1);
  unsetenv("BURN_PLUGIN_DISABLE");
  const auto plugins = in_tree_plugins();
  const std::string cpu_plugin = fs::canonical(fs::path(BURN_PLUGIN_BUILD_DIR) / "libburn-backend-cpu.so").string();
  ASSERT_TRUE(contains(plugins, cpu_plugin));
  ASSERT_GE(plugins.size(), 4u) << "expected more in-tree plugins than cpu in " << BURN_PLUGIN_BUILD_DIR;
  for (const auto& p : plugins) {
    // Nothing asks the host before this line in a fresh process; ctest runs each test in a process of its own.
    if (p != cpu_plugin && mapped_files().count(p)) GTEST_SKIP() << "needs a fresh process: " << p << " is mapped";
  }

  burn::plugins::discover();
  for (const auto& p : plugins) EXPECT_EQ(mapped_files().count(p), 0u) << p << " is mapped by discovery alone";

  const auto cpu = burn::Device::get("cpu");
  EXPECT_EQ(cpu.name(), "cpu");
  auto maps = mapped_files();
  EXPECT_EQ(maps.count(cpu_plugin), 1u);
  for (const auto& p : plugins) {
    if (p != cpu_plugin) EXPECT_EQ(maps.count(p), 0u) << p << " is mapped by a program that uses only cpu";
  }
  EXPECT_EQ(maps.count(fs::canonical(BURN_TEST_PLUGIN_LAZYTEST).string()), 0u) << "a test plugin made by the macro";

  // The report lists every plugin as opened and checked: all are mapped, each under its descriptor's name.
  const auto records = burn::plugins::report();
  maps = mapped_files();
  for (const auto& p : plugins) {
    EXPECT_EQ(maps.count(p), 1u) << p << " is not mapped after report()";
    const PluginRecord* r = find_record(records, p);
    ASSERT_NE(r, nullptr) << p;
    EXPECT_FALSE(r->version.empty()) << p << ": " << r->reason;
  }
  // fwdtest2's file name says fwdtest2, its section and descriptor say fwdtest: it is one of the two fwdtests.
  const PluginRecord* fwdtest2 = find_record(records, BURN_TEST_PLUGIN_DIR "/libburn-backend-fwdtest2.so");
  ASSERT_NE(fwdtest2, nullptr);
  EXPECT_EQ(fwdtest2->name, "fwdtest");
  EXPECT_TRUE(fwdtest2->loaded) << fwdtest2->reason;
}

TEST(PluginLazyOpen, ASectionThatDisagreesWithTheDescriptorIsRejectedNamingBoth) {
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR, 1);
  unsetenv("BURN_PLUGIN_DISABLE");
  burn::plugins::discover();
  // Registered as the section says, as recorder 'notealias': the recorders' names open it, and it is rejected.
  const auto recorders = burn::plugins::plugin_names(BURN_PLUGIN_RECORDER);
  EXPECT_FALSE(contains(recorders, "notealias"));
  EXPECT_FALSE(contains(recorders, "notemismatch"));
  const std::string want =
      "the descriptor says backend 'notemismatch' but its .burn_plugin section says recorder 'notealias'";
  const auto records = burn::plugins::report();
  const PluginRecord* r = find_record(records, BURN_TEST_PLUGIN_NOTEMISMATCH);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->loaded);
  EXPECT_EQ(r->reason, want);
  EXPECT_FALSE(contains(burn::plugins::backend_names(), "notemismatch"));
  // An explicit load of the same file answers with the same reason.
  EXPECT_EQ(load_error(BURN_TEST_PLUGIN_NOTEMISMATCH), rejection(BURN_TEST_PLUGIN_NOTEMISMATCH, want));
}

TEST(PluginLazyOpen, AnExplicitLoadOpensAtOnce) {
  unsetenv("BURN_PLUGIN_DISABLE");
  const std::string json = (fs::path(BURN_PLUGIN_BUILD_DIR) / "libburn-recorder-json.so").string();
  ASSERT_TRUE(fs::exists(json));
  EXPECT_EQ(load_error(json), "");
  EXPECT_EQ(mapped_files().count(fs::canonical(json).string()), 1u);
}

// The lazytest plugin's count of its own score() calls, read through the loaded library.
int score_calls() {
  void* lib = dlopen(BURN_TEST_PLUGIN_LAZYTEST, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return -1;  // not loaded
  const auto calls = reinterpret_cast<int (*)()>(dlsym(lib, "burn_test_score_calls"));
  const int n = calls ? calls() : -2;
  dlclose(lib);  // drops only the reference NOLOAD took
  return n;
}

TEST(PluginLazyScore, ScoreIsAskedWhenTheNameIsFirstNeededAndOnce) {
  // ctest runs it in a process of its own; in one run of the whole binary the tests above opened the plugin.
  if (score_calls() != -1) GTEST_SKIP() << "needs a fresh process: lazytest is open already";
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR, 1);
  burn::plugins::discover();
  ASSERT_EQ(score_calls(), -1) << "discovery registered the plugin from its section and did not open it";

  // Another backend by name, and the names of another kind: lazytest stays unopened and unasked.
  const auto cpu = burn::Device::get("cpu");
  EXPECT_EQ(cpu.name(), "cpu");
  (void)burn::plugins::plugin_names(BURN_PLUGIN_RECORDER);
  EXPECT_EQ(score_calls(), -1);

  // The list of backends asks every one, once; its own name and the report ask nothing more.
  const auto names = burn::plugins::backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "lazytest"), names.end());
  EXPECT_EQ(score_calls(), 1);
  const auto backend = burn::plugins::create_backend("lazytest");
  ASSERT_NE(backend, nullptr);
  bool listed = false;
  for (const auto& r : burn::plugins::report()) {
    if (r.name != "lazytest") continue;
    listed = true;
    EXPECT_TRUE(r.selected);
    EXPECT_EQ(r.score, 1);
  }
  EXPECT_TRUE(listed);
  EXPECT_EQ(score_calls(), 1);
}

TEST(PluginLazyScore, ItsOwnNameAsksItFirst) {
  // Runs in a process of its own under ctest; after the test above (one binary run) the plugin is scored already.
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR, 1);
  burn::plugins::discover();
  const int before = score_calls();
  const auto backend = burn::plugins::create_backend("lazytest");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(score_calls(), 1) << "asked " << before << " times before";
}

}  // namespace
