// Uses an installed burn from outside the monorepo with only find_package(burn COMPONENTS tensor autodiff):
// gets the cpu device (its backend found and loaded as a plugin at run time), runs a few tensor
// ops and checks the values; exits non-zero on any mismatch or error.
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include <burn/autodiff/autodiff.hpp>
#include <burn/tensor.hpp>

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

}  // namespace

int main() {
  using namespace burn;
  try {
    Device dev = Device::get("cpu");
    std::printf("device: %s\n", dev.name().c_str());
    auto a = Tensor<2>::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, dev);
    auto b = Tensor<2>::ones({3, 2}, dev);
    int failures = 0;
    failures += check("add", (a + a * 10.0f).to_vec<float>(), {11, 22, 33, 44, 55, 66});
    failures += check("matmul", a.matmul(b).to_vec<float>(), {6, 6, 15, 15});
    failures += check("transpose+sum_dim", a.transpose().sum_dim(1).to_vec<float>(), {5, 7, 9});
    // torch.softmax(torch.tensor([1., 2., 3.]), 0)
    failures += check("softmax", a.slice({Slice::at(0)}).softmax(1).to_vec<float>(), {0.09003057f, 0.24472847f, 0.66524096f});
    // d/dx sum(x^2 * 3) = 6x on the autodiff device.
    Device ad = dev.autodiff();
    auto x = Tensor<1>::from_vector(std::vector<float>{1, -2, 0.5f}, {3}, ad).require_grad();
    Gradients grads = (x * x * 3.0f).sum().backward();
    failures += check("autodiff grad", x.grad(grads)->to_vec<float>(), {6, -12, 3});
    std::printf(failures ? "FAILED\n" : "OK\n");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    return 2;
  }
}
