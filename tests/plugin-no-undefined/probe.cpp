// A plugin source that uses libburn-tensor (resolved at link time, so --no-undefined accepts it)
// and, in the `missing` build, a kernel that is declared but never defined.
#include <string_view>

#include <burn/tensor/dtype.hpp>

float burn_test_missing_kernel(float x);  // declared, defined nowhere

extern "C" __attribute__((visibility("default"))) const char* burn_test_probe(float x) {
#ifdef BURN_TEST_MISSING_KERNEL
  if (burn_test_missing_kernel(x) > 0) return "unreachable";
#endif
  (void)x;
  return burn::dtype_name(burn::DType::F32).data();
}
