// The opencl plugin on a machine without the OpenCL ICD loader: a copy of the plugin whose DT_NEEDED names
// libOpenCL.so.9 (opencl.fault.copy_without_loader makes it) is rejected with the library named, and the cpu
// plugin loads and computes in a process that never maps an OpenCL library. This program links burn-tensor
// only.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/plugin.hpp"

namespace burn {
namespace {

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::string maps() {
  std::ifstream f("/proc/self/maps");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(OpenClWithoutLoader, ThePluginIsRejectedNamingTheLoaderAndTheCpuPluginComputes) {
  const std::string copy = BURN_OPENCL_COPY_WITHOUT_LOADER;
  const std::string why =
      "needs libOpenCL.so.9 (the OpenCL ICD loader; Debian: ocl-icd-libopencl1), which cannot be opened";
  try {
    plugins::load(copy);
    FAIL() << "a plugin whose OpenCL loader is missing was loaded";
  } catch (const PluginError& e) {
    EXPECT_CONTAINS(e.what(), copy);
    EXPECT_CONTAINS(e.what(), why);
  }
  // The build folder's opencl plugin would bring the loader in: a machine without one has none.
  ::setenv("BURN_PLUGIN_DISABLE", "opencl", 1);
  Device cpu = Device::get("cpu");
  const TensorHandle x = api::from_data(cpu, TensorData::from_vector<float>({1, 2, 3}, Shape{3}), Kind::Float);
  EXPECT_EQ(api::into_data(api::add(x, x)).to_vec<float>(), (std::vector<float>{2, 4, 6}));
  bool listed = false;
  for (const plugins::PluginRecord& r : plugins::report()) {
    if (r.path != copy) continue;
    listed = true;
    EXPECT_FALSE(r.loaded);
    EXPECT_CONTAINS(r.reason, why);
  }
  EXPECT_TRUE(listed) << "the rejected copy is not in the plugin report";
  EXPECT_EQ(maps().find("libOpenCL"), std::string::npos) << "an OpenCL library was mapped:\n" << maps();
}

}  // namespace
}  // namespace burn
