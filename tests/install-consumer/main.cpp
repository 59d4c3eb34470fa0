// Uses an installed burn from outside the monorepo with only find_package(burn COMPONENTS tensor autodiff nn):
// gets the cpu device (its backend found and loaded as a plugin at run time), runs a few tensor
// ops and checks the values (and a burn::nn Linear); exits non-zero on any mismatch or error.
//
// It reaches autodiff through the spec string "autodiff<cpu>" alone, referencing no symbol of
// libburn-autodiff, and is linked with --as-needed right before the burn libraries (CMakeLists.txt),
// so the linker drops libburn-autodiff: burn-tensor must load it when the spec names it.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <burn/nn.hpp>
#include <burn/tensor.hpp>
#include <burn/tensor/version.hpp>

namespace {

int check(const char* what, const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) {
    std::fprintf(stderr, "FAIL %s: %zu values, expected %zu\n", what, got.size(), want.size());
    return 1;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > 1e-5f) {
      std::fprintf(stderr, "FAIL %s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  }
  std::printf("ok %s\n", what);
  return 0;
}

bool autodiff_library_mapped() {
  const std::string soname = "libburn-autodiff.so." + std::to_string(BURN_TENSOR_VERSION_MAJOR);
  void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

}  // namespace

int main() {
  using namespace burn;
  try {
    // The premise of the --as-needed check: the link dropped libburn-autodiff.
    if (autodiff_library_mapped()) {
      std::fprintf(stderr, "FAIL: libburn-autodiff is loaded at start; the --as-needed link did not drop it\n");
      return 1;
    }
    Device dev = Device::get("cpu");
    std::printf("device: %s\n", dev.name().c_str());
    auto a = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, dev);
    auto b = Tensor<2>::ones({3, 2}, dev);
    int failures = 0;
    failures += check("add", (a + a * 10.0f).to_vec<float>(), {11, 22, 33, 44, 55, 66});
    failures += check("matmul", a.matmul(b).to_vec<float>(), {6, 6, 15, 15});
    failures += check("transpose+sum_dim", a.transpose().sum_dim(1).to_vec<float>(), {5, 7, 9});
    // torch.softmax(torch.tensor([1., 2., 3.]), 0)
    failures +=
        check("softmax", a.slice({Slice::at(0)}).softmax(1).to_vec<float>(), {0.09003057f, 0.24472847f, 0.66524096f});
    // d/dx sum(x^2 * 3) = 6x on the autodiff device, named by its spec only.
    Device ad = Device::get("autodiff<cpu>");
    auto x = Tensor<1>::from_vector(std::vector<float>{1, -2, 0.5f}, {3}, ad).require_grad();
    Gradients grads = (x * x * 3.0f).sum().backward();
    failures += check("autodiff grad", x.grad(grads)->to_vec<float>(), {6, -12, 3});
    // burn::nn from the package: a Linear with known weights, its gradient through autodiff.
    nn::Linear lin = nn::LinearConfig{2, 1}.init(ad);
    lin.weight.set(Tensor<2>::from_vector(std::vector<float>{2, -1}, {2, 1}, ad));
    lin.bias->set(Tensor<1>::from_vector(std::vector<float>{0.5f}, {1}, ad));
    auto in = Tensor<2>::from_vector(std::vector<float>{1, 3}, {1, 2}, ad);
    Gradients lin_grads = lin.forward(in).sum().backward();
    failures += check("nn linear", lin.forward(in).to_vec<float>(), {-0.5f});
    failures += check("nn linear grad", lin.weight.val().grad(lin_grads)->to_vec<float>(), {1, 3});
    failures += check("nn num_params", {static_cast<float>(lin.num_params())}, {3});
    std::printf(failures ? "FAILED\n" : "OK\n");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 2;
  }
}
