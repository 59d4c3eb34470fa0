// Faults of the OpenCL runtime through the tensor api: a device lost at an enqueue or at a wait, a buffer
// the driver refuses, a program that does not build. Each is a clear burn::Error naming the op, and whatever
// was not lost keeps working. The driver's failures are injected by BURN_OPENCL_FAULT (tests only), since
// PoCL cannot be made to give them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "burn/tensor/api.hpp"
#include "burn/tensor/error.hpp"
#include "opencl_backend.hpp"
#include "runtime/fault_injection.hpp"

namespace burn::opencl {
namespace {

// Sets BURN_OPENCL_FAULT for one scope.
struct InjectFault {
  explicit InjectFault(const char* what) { ::setenv("BURN_OPENCL_FAULT", what, 1); }
  ~InjectFault() { ::unsetenv("BURN_OPENCL_FAULT"); }
  InjectFault(const InjectFault&) = delete;
  InjectFault& operator=(const InjectFault&) = delete;
};

std::shared_ptr<const Platforms> platforms_or_null() {
  auto p = Platforms::get();
  return p->best_score() > 0 ? p : nullptr;
}

#define REQUIRE_PLATFORMS()             \
  auto platforms = platforms_or_null(); \
  if (!platforms) GTEST_SKIP() << "no usable OpenCL device (install pocl-opencl-icd for PoCL on the CPU)"

// A device of its own (a context of its own, not context_for's shared one), so that losing it harms no other.
Device own_device(const Platforms& platforms) {
  return Device::from_backend(std::make_shared<OpenClBackend>(Context::create(platforms.choose("")), "opencl"));
}

std::vector<float> values(const TensorHandle& h) { return api::into_data(h).to_vec<float>(); }

TensorHandle small(const Device& d) {
  return api::from_data(d, TensorData::from_vector<float>({1, 2, 3}, Shape{3}), Kind::Float);
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(OpenClFaults, TheFaultListIsParsedByName) {
  InjectFault f(" alloc ,compile");
  EXPECT_TRUE(fault_injected(Fault::alloc));
  EXPECT_TRUE(fault_injected(Fault::compile));
  EXPECT_FALSE(fault_injected(Fault::device_lost));
  ::setenv("BURN_OPENCL_FAULT", "device-lost-wait", 1);
  EXPECT_FALSE(fault_injected(Fault::device_lost));
  EXPECT_TRUE(fault_injected(Fault::device_lost_wait));
  EXPECT_EQ(injected_note(), " (injected by BURN_OPENCL_FAULT=device-lost-wait)");
}

TEST(OpenClFaults, ABufferTheDriverRefusesIsOutOfMemoryAndTheDeviceStaysUsable) {
  REQUIRE_PLATFORMS();
  Device d = own_device(*platforms);
  const int64_t n = 8 << 20;  // 32 MiB of f32: above the injected fault's 16 MiB
  {
    InjectFault f("alloc");
    try {
      api::full(d, Shape{n}, Scalar(2.0), DType::F32);
      FAIL() << "the injected allocation failure was ignored";
    } catch (const OutOfMemory& e) {
      EXPECT_CONTAINS(e.what(), "[full]");
      EXPECT_CONTAINS(e.what(), "cannot give " + std::to_string(n * 4) + " bytes");
      EXPECT_CONTAINS(e.what(), "clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)");
      EXPECT_CONTAINS(e.what(), "injected by BURN_OPENCL_FAULT=alloc");
    }
    // A smaller tensor still gets its buffer, and the kernels run.
    EXPECT_EQ(values(api::mul(small(d), small(d))), (std::vector<float>{1, 4, 9}));
  }
  TensorHandle big = api::full(d, Shape{n}, Scalar(2.0), DType::F32);
  EXPECT_EQ(values(api::reduce_all(OpId::sum, big)), (std::vector<float>{2.0f * n}));
}

// Loses a device under `fault`, in `op_of_loss` at `call`, then checks the error of that op and of every
// later one on the device, and that the cpu backend and another context on the same device still work.
void lose_device(const char* fault, const std::string& op_of_loss, const std::string& call, const char* code) {
  REQUIRE_PLATFORMS();
  Device d = own_device(*platforms);
  TensorHandle x = small(d);
  EXPECT_EQ(values(api::unary(OpId::exp, api::sub(x, x))), (std::vector<float>{1, 1, 1}));
  const std::string cause = "was lost (" + call + ": " + code + ", in op '" + op_of_loss + "')";
  {
    InjectFault f(fault);
    try {
      values(api::unary(OpId::exp, x));
      FAIL() << "the injected device loss was ignored";
    } catch (const DeviceError& e) {
      EXPECT_CONTAINS(e.what(), "[" + op_of_loss + "] the OpenCL device ");
      EXPECT_CONTAINS(e.what(), cause);
      EXPECT_CONTAINS(e.what(), std::string("injected by BURN_OPENCL_FAULT=") + fault);
      EXPECT_CONTAINS(e.what(), "the device runs nothing more");
    }
  }
  // Later calls on that device fail at once with the same cause, naming their own op: a kernel, a read of
  // a tensor made before the loss, an upload.
  for (const auto& [op, run] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"add", [&] { api::add(x, x); }},
           {"into_data", [&] { api::into_data(x); }},
           {"from_data", [&] { small(d); }},
       }) {
    try {
      run();
      ADD_FAILURE() << op << " ran on a lost device";
    } catch (const DeviceError& e) {
      EXPECT_CONTAINS(e.what(), "[" + op + "]");
      EXPECT_CONTAINS(e.what(), cause);
    }
  }
  Device cpu = Device::get("cpu");
  EXPECT_EQ(values(api::add(small(cpu), small(cpu))), (std::vector<float>{2, 4, 6}));
  Device other = own_device(*platforms);
  EXPECT_EQ(values(api::add(small(other), small(other))), (std::vector<float>{2, 4, 6}));
  // `d` and `x` go here: the lost context is released without waiting for anything.
}

TEST(OpenClFaults, ADeviceLostAtAnEnqueueFailsThisAndEveryLaterOpWithOneCause) {
  // The exp kernel's enqueue is the first to fail (its layout block was written by the exp before the fault).
  lose_device("device-lost", "exp", "clEnqueueNDRangeKernel", "CL_INVALID_COMMAND_QUEUE (-36)");
}

TEST(OpenClFaults, ADeviceLostAtAWaitFailsThisAndEveryLaterOpWithOneCause) {
  // The kernel runs; the blocking read that waits for it returns NVIDIA's code for a device that faulted.
  lose_device("device-lost-wait", "into_data", "clEnqueueReadBuffer", "CL_OUT_OF_RESOURCES (-5)");
}

TEST(OpenClFaults, ADeviceLostAtAnUploadNamesTheWrite) {
  REQUIRE_PLATFORMS();
  Device d = own_device(*platforms);
  {
    InjectFault f("device-lost");
    try {
      small(d);
      FAIL() << "the injected device loss was ignored";
    } catch (const DeviceError& e) {
      EXPECT_CONTAINS(e.what(), "was lost (clEnqueueWriteBuffer: CL_INVALID_COMMAND_QUEUE (-36), in op 'from_data')");
    }
  }
  EXPECT_THROW(small(d), DeviceError);
}

TEST(OpenClFaults, ADeviceLostAtFinishIsLostToo) {
  REQUIRE_PLATFORMS();
  Device d = own_device(*platforms);
  TensorHandle y = api::unary(OpId::exp, small(d));
  {
    InjectFault f("device-lost-wait");
    try {
      d.sync();
      FAIL() << "the injected device loss was ignored";
    } catch (const DeviceError& e) {
      EXPECT_CONTAINS(e.what(), "was lost (clFinish: CL_OUT_OF_RESOURCES (-5), in op 'sync')");
    }
  }
  EXPECT_THROW(api::into_data(y), DeviceError);
}

TEST(OpenClFaults, AProgramThatDoesNotBuildGivesTheDriversBuildLog) {
  REQUIRE_PLATFORMS();
  Device d = own_device(*platforms);  // no program built yet
  TensorHandle x = small(d);
  {
    InjectFault f("compile");
    try {
      api::into_data(api::unary(OpId::sqrt, x));
      FAIL() << "the injected build error was ignored";
    } catch (const DeviceError& e) {
      EXPECT_CONTAINS(e.what(), "[sqrt] OpenCL kernel 'elementwise'");
      EXPECT_CONTAINS(e.what(), "does not build on");
      EXPECT_CONTAINS(e.what(), "CL_BUILD_PROGRAM_FAILURE (-11)");
      EXPECT_CONTAINS(e.what(), "injected by BURN_OPENCL_FAULT=compile");
      EXPECT_CONTAINS(e.what(), "injected_by_BURN_OPENCL_FAULT");  // the driver's log quotes the line
    }
  }
  // Nothing was cached from the failure: the same op builds and runs now.
  const std::vector<float> got = values(api::unary(OpId::sqrt, x));
  EXPECT_FLOAT_EQ(got[2], std::sqrt(3.0f));
}

}  // namespace
}  // namespace burn::opencl
