// Discovery opens and checks every plugin but asks a plugin's score() only when its name is first needed (or
// the whole list is), so a program on the cpu backend never starts the GPU drivers; each score() is asked once.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "burn/tensor/device.hpp"
#include "burn/tensor/plugin.hpp"

namespace {

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
  setenv("BURN_PLUGIN_PATH", BURN_TEST_PLUGIN_DIR, 1);
  burn::plugins::discover();
  ASSERT_EQ(score_calls(), 0) << "discovery opened the plugin and asked nothing yet";

  // Another backend by name, and the names of another kind: lazytest stays unasked.
  const auto cpu = burn::Device::get("cpu");
  EXPECT_EQ(cpu.name(), "cpu");
  (void)burn::plugins::plugin_names(BURN_PLUGIN_RECORDER);
  EXPECT_EQ(score_calls(), 0);

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
