// Every kernel source with every define set its launchers produce (kernel_variants.hpp) compiles with
// glslang and validates with spirv-val for Vulkan 1.2; no device needed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>

#include "burn/tensor/error.hpp"
#include "kernel_variants.hpp"
#include "runtime/kernel_sources.hpp"

namespace burn::vulkan {
namespace {

DeviceFeatures everything() {
  DeviceFeatures f;
  f.float64 = f.float16 = f.int64 = f.int8 = f.int16 = f.storage16 = true;
  f.buffer_device_address = f.timeline_semaphore = true;
  f.subgroup_arithmetic = f.subgroup_shuffle = true;
  return f;
}

std::string describe(const KernelVariant& v) {
  std::string s = v.kernel + " [";
  for (const auto& [k, val] : v.defines) s += k + "=" + val + " ";
  return s + "]";
}

TEST(VulkanKernels, EverySourceIsCoveredByAVariant) {
  std::set<std::string> covered;
  for (const KernelVariant& v : kernel_variants(everything()))
    if (v.generated.empty()) covered.insert(v.kernel);
  for (std::string_view k : kernel_names()) EXPECT_TRUE(covered.count(std::string(k))) << "kernels/" << k << ".comp";
}

TEST(VulkanKernels, EveryVariantCompilesAndValidates) {
#ifndef BURN_SPIRV_VAL
  GTEST_SKIP() << "spirv-val was not found at configure time (Debian: spirv-tools)";
#else
  const std::vector<KernelVariant> variants = kernel_variants(everything());
  ASSERT_GT(variants.size(), 100u);
  // Variants per kernel in the log: what the compile time (about 60 s on two cores at most) is spent on.
  std::map<std::string, size_t> per_kernel;
  for (const KernelVariant& v : variants) ++per_kernel[v.kernel];
  std::string counts;
  for (const auto& [kernel, n] : per_kernel) counts += " " + kernel + " " + std::to_string(n);
  std::printf("%zu variants:%s\n", variants.size(), counts.c_str());
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("burn-vulkan-kernels-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Two workers: glslang is thread-safe once initialised, and each variant is independent.
  auto work = [&](size_t first) {
    std::vector<std::string> failures;
    for (size_t i = first; i < variants.size(); i += 2) {
      const KernelVariant& v = variants[i];
      try {
        const std::string src = assemble_source(v.kernel, v.defines, v.generated);
        const std::vector<uint32_t> spirv = compile_glsl(v.kernel, src, v.defines);
        const std::filesystem::path file = dir / (std::to_string(i) + ".spv");
        std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(spirv.data()), spirv.size() * 4);
        const std::string cmd = std::string(BURN_SPIRV_VAL) + " --target-env vulkan1.2 " + file.string() + " > " +
                                file.string() + ".log 2>&1";
        if (std::system(cmd.c_str()) != 0) {
          std::ifstream log(file.string() + ".log");
          failures.push_back(describe(v) + ": spirv-val: " +
                             std::string(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>()));
        }
      } catch (const Error& e) {
        failures.push_back(describe(v) + ": " + e.what());
      }
    }
    return failures;
  };
  auto a = std::async(std::launch::async, work, 0);
  auto b = std::async(std::launch::async, work, 1);
  std::vector<std::string> failures = a.get();
  for (auto& f : b.get()) failures.push_back(std::move(f));
  std::filesystem::remove_all(dir);
  for (size_t i = 0; i < failures.size() && i < 10; ++i) ADD_FAILURE() << failures[i];
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << variants.size() << " variants failed";
#endif
}

}  // namespace
}  // namespace burn::vulkan
