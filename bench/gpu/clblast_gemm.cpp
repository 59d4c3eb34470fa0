// CLBlast's SGEMM timed on its own (bench/gpu/clblast_gemm.hpp).
#define CL_TARGET_OPENCL_VERSION 120
#include "clblast_gemm.hpp"

#include <CL/cl.h>
#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace burn::bench {
namespace {

// The plugin's default rule (docs/environment.md, BURN_OPENCL_DEVICE): a GPU with its own memory, then one
// sharing the host's, then an accelerator, then the rest; the first among equals.
int device_rank(cl_device_id d) {
  cl_device_type type = 0;
  cl_bool unified = CL_FALSE;
  clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr);
  if (type & CL_DEVICE_TYPE_GPU) return unified ? 3 : 4;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return 2;
  return 1;
}

cl_device_id pick_device() {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return nullptr;
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  cl_device_id best = nullptr;
  int best_rank = 0;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr);
    for (cl_device_id d : devices)
      if (const int r = device_rank(d); r > best_rank) best = d, best_rank = r;
  }
  return best;
}

std::string device_name(cl_device_id d) {
  char name[256] = {};
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  return name;
}

}  // namespace

int clblast_gemm(int64_t n, int inner, int reps) {
  cl_device_id dev = pick_device();
  if (!dev) {
    std::fprintf(stderr, "gemm_clblast: no OpenCL device\n");
    return 77;
  }
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "gemm_clblast: clCreateContext failed (%d)\n", err);
    return 1;
  }
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
  const size_t elems = static_cast<size_t>(n) * static_cast<size_t>(n);
  std::vector<float> host(elems);
  for (size_t i = 0; i < elems; ++i) host[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
  cl_mem buf[3] = {};
  for (cl_mem& b : buf) {
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elems * sizeof(float), host.data(), &err);
    if (err != CL_SUCCESS) break;
  }
  int rc = 0;
  auto call = [&] {
    cl_command_queue q = queue;
    const auto s = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, n,
                                        n, n, 1.0f, buf[0], 0, n, buf[1], 0, n, 0.0f, buf[2], 0, n, &q, nullptr);
    return s == clblast::StatusCode::kSuccess ? 0 : static_cast<int>(s);
  };
  if (err != CL_SUCCESS || !queue) {
    std::fprintf(stderr, "gemm_clblast: allocating 3 x %zu bytes failed (%d)\n", elems * sizeof(float), err);
    rc = 1;
  } else if (const int s = call(); s != 0 || clFinish(queue) != CL_SUCCESS) {
    std::fprintf(stderr, "gemm_clblast: CLBlast's Gemm failed (status %d)\n", s);
    rc = 1;
  } else {
    std::vector<double> t;
    reps = std::max(reps, 1);
    for (int r = 0; r < reps && rc == 0; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < inner && rc == 0; ++i) rc = call();
      clFinish(queue);
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / inner);
    }
    std::sort(t.begin(), t.end());
    const double ms = t.empty() ? 0 : t[t.size() / 2];
    if (rc != 0) std::fprintf(stderr, "gemm_clblast: CLBlast's Gemm failed (status %d)\n", rc);
    if (rc == 0)
      std::printf(
          "{\"case\": \"gemm_clblast\", \"dtype\": \"f32\", \"n\": %lld, \"device\": \"%s\", \"ms\": %.4f, "
          "\"tflops\": %.3f}\n",
          static_cast<long long>(n), device_name(dev).c_str(), ms, 2.0 * n * n * n / (ms * 1e-3) / 1e12);
  }
  for (cl_mem b : buf)
    if (b) clReleaseMemObject(b);
  if (queue) clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return rc == 0 ? 0 : 1;
}

}  // namespace burn::bench
