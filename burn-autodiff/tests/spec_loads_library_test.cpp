// A program that links only burn::tensor (as one whose --as-needed link dropped libburn-autodiff)
// gets the autodiff decorators from the spec string alone: burn-tensor loads libburn-autodiff from
// its own folder when a spec names a decorator that is not registered.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "burn/tensor.hpp"
#include "burn/tensor/version.hpp"

namespace {

bool registered(const std::string& name) {
  const std::vector<std::string> names = burn::registered_decorators();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool autodiff_library_mapped() {
  void* h =
      dlopen(("libburn-autodiff.so." + std::to_string(BURN_TENSOR_VERSION_MAJOR)).c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

}  // namespace

TEST(DecoratorLibrary, SpecStringLoadsLibburnAutodiff) {
  // The premise: nothing has brought libburn-autodiff into this process yet.
  ASSERT_FALSE(autodiff_library_mapped());
  ASSERT_FALSE(registered("autodiff"));

  burn::Device ad = burn::Device::get("autodiff<cpu>");
  EXPECT_EQ(ad.name(), "autodiff<cpu>");
  EXPECT_TRUE(autodiff_library_mapped());
  EXPECT_TRUE(registered("autodiff-balanced"));  // the variant comes with the same library

  // d/dx sum(x^2 * 3) = 6x
  auto x = burn::Tensor<1>::from_vector(std::vector<float>{1, -2, 0.5f}, {3}, ad).require_grad();
  burn::Gradients grads = (x * x * 3.0f).sum().backward();
  EXPECT_EQ(x.grad(grads)->to_vec<float>(), (std::vector<float>{6, -12, 3}));
}

TEST(DecoratorLibrary, VariantNameLoadsTheSameComponent) {
  EXPECT_EQ(burn::Device::get("autodiff-balanced<cpu>").name(), "autodiff-balanced<cpu>");
}
