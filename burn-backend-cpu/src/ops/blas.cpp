// GEMM through OpenBLAS, opened at run time (see blas.hpp), split over the pool in blocks of rows or columns.
#include "ops/blas.hpp"

#include <cblas.h>  // the enums and the functions' types only: the library is opened with dlopen
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "burn/tensor/error.hpp"
#include "burn/tensor/log.hpp"
#include "cpu_tensor.hpp"

// The soname of the BLAS the build found (burn-backend-cpu/CMakeLists.txt).
#ifndef BURN_CPU_BLAS_SONAME
#define BURN_CPU_BLAS_SONAME "libopenblas.so.0"
#endif

namespace burn::cpu {
namespace {

// The functions the plugin calls, resolved once from the opened library.
struct BlasFunctions {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_sgemv) sgemv = nullptr;
  decltype(&cblas_dgemv) dgemv = nullptr;
  void (*set_num_threads)(int) = nullptr;  // OpenBLAS only
  char* (*get_corename)() = nullptr;       // OpenBLAS only
};

// BURN_CPU_BLAS alone when set; else the build's library, then Debian's OpenBLAS and the libblas.so.3 alternative.
std::vector<std::string> candidates() {
  if (const char* env = std::getenv("BURN_CPU_BLAS"); env && *env) return {env};
  std::vector<std::string> out{BURN_CPU_BLAS_SONAME};
  for (const char* name : {"libopenblas.so.0", "libblas.so.3"})
    if (out.front() != name) out.emplace_back(name);
  return out;
}

std::string lacks(const std::string& library, const char* function) {
  return library + " has no " + function + ": the cpu backend's GEMM needs a CBLAS";
}

template <typename F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

// Resolves the table from an open handle; the name of the first missing GEMM function, or nullptr.
const char* resolve(void* handle, BlasFunctions& f) {
  f.sgemm = symbol<decltype(f.sgemm)>(handle, "cblas_sgemm");
  f.dgemm = symbol<decltype(f.dgemm)>(handle, "cblas_dgemm");
  f.sgemv = symbol<decltype(f.sgemv)>(handle, "cblas_sgemv");
  f.dgemv = symbol<decltype(f.dgemv)>(handle, "cblas_dgemv");
  f.set_num_threads = symbol<decltype(f.set_num_threads)>(handle, "openblas_set_num_threads");
  f.get_corename = symbol<decltype(f.get_corename)>(handle, "openblas_get_corename");
  if (!f.sgemm) return "cblas_sgemm";
  if (!f.dgemm) return "cblas_dgemm";
  if (!f.sgemv) return "cblas_sgemv";
  if (!f.dgemv) return "cblas_dgemv";
  return nullptr;
}

// The core to ask OpenBLAS for on an AMD CPU with AVX-512 F/BW/DQ/VL (Zen 4, Zen 5), nullptr elsewhere: an
// OpenBLAS that does not recognise the CPU runs its AVX2 kernels there, at 0.6x the AVX-512 ones' SGEMM.
// Cooperlake (SkylakeX's kernels plus bf16) where the CPU has AVX512-BF16, which is what Debian's 0.3.21
// detects itself on a Zen 5, so a library that knows the CPU gets its own choice; SkylakeX otherwise. A
// library that knows neither name warns and detects. Intel CPUs are left to OpenBLAS, which knows its own.
const char* amd_avx512_core() {
  __builtin_cpu_init();
  if (!(__builtin_cpu_is("amd") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")))
    return nullptr;
  return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
}

struct Loaded {
  BlasFunctions fns;
  BlasInfo info;
};

Loaded load() {
  Loaded out;
  const auto names = candidates();
  void* handle = nullptr;
  const char* user = std::getenv("OPENBLAS_CORETYPE");
  const bool user_set = user && *user;
  // A BLAS the process has already loaded (linked by the program, or opened by another component)
  // chose its core in its constructor: use it, and say so.
  for (const auto& name : names)
    if ((handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))) {
      out.info.library = name;
      out.info.chosen_by = std::string(user_set ? "from OPENBLAS_CORETYPE" : "OpenBLAS's own detection") +
                           "; the library was loaded before the cpu plugin";
      break;
    }
  if (!handle) {
    bool set_here = false;
    if (user_set) {
      out.info.chosen_by = "from OPENBLAS_CORETYPE";
    } else if (const char* core = amd_avx512_core()) {
      // OpenBLAS reads the variable once, in the constructor dlopen runs, and has no call to choose a core
      // later: the environment is the only way in. Safe enough: it happens once per process (the static in
      // loaded()), for the span of one dlopen at the first GEMM or pool start; setenv does not overwrite (a
      // user's value always wins) and the variable is removed after, so child processes and later readers see
      // the environment the user gave. Only a getenv racing in another thread in that span could see it change.
      set_here = setenv("OPENBLAS_CORETYPE", core, 0) == 0;
      out.info.chosen_by = "set by burn: AMD with AVX-512";
    } else {
      out.info.chosen_by = "OpenBLAS's own detection";
    }
    std::string first_error;
    for (const auto& name : names) {
      if ((handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        out.info.library = name;
        break;
      }
      if (first_error.empty()) first_error = dlerror();
    }
    if (set_here) unsetenv("OPENBLAS_CORETYPE");
    if (!handle) {
      std::string tried;
      for (const auto& name : names) tried += (tried.empty() ? "" : ", ") + name;
      out.info.error = "the cpu backend's GEMM needs OpenBLAS (or another CBLAS), and " +
                       (names.size() == 1 ? tried + " cannot" : "none of " + tried + " can") +
                       " be opened: " + first_error + (std::getenv("BURN_CPU_BLAS") ? "" : "; install libopenblas0");
      return out;
    }
  }
  if (const char* missing = resolve(handle, out.fns)) {
    out.info.error = lacks(out.info.library, missing);
    out.fns = {};
    return out;
  }
  if (out.fns.get_corename) {
    const char* core = out.fns.get_corename();
    out.info.core = core ? core : "";
  } else {
    out.info.chosen_by = "not OpenBLAS: no core to report";
  }
  return out;
}

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded r = load();
    if (log::enabled(log::Level::debug)) log::debug("cpu backend: " + describe(r.info));
    return r;
  }();
  return l;
}

const BlasFunctions& fns() {
  const Loaded& l = loaded();
  if (!l.info.error.empty()) {
    const char* op = current_op();
    throw PluginError(op && *op ? op : "matmul", l.info.error);
  }
  return l.fns;
}

// Rows or columns per block at least, in multiples of the GEMM kernels' register tiles.
constexpr int64_t kBlockAlign = 16;

// y = alpha op(A) x + beta y, A stored row-major rows x cols.
template <typename T>
void gemv(bool trans, int64_t rows, int64_t cols, T alpha, const T* a, int64_t lda, const T* x, int64_t incx, T beta,
          T* y, int64_t incy) {
  const auto op = trans ? CblasTrans : CblasNoTrans;
  const int r = static_cast<int>(rows), c = static_cast<int>(cols);
  if constexpr (std::is_same_v<T, float>)
    fns().sgemv(CblasRowMajor, op, r, c, alpha, a, static_cast<int>(lda), x, static_cast<int>(incx), beta, y,
                static_cast<int>(incy));
  else
    fns().dgemv(CblasRowMajor, op, r, c, alpha, a, static_cast<int>(lda), x, static_cast<int>(incx), beta, y,
                static_cast<int>(incy));
}

template <typename T>
void serial_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                 int64_t ldb, T beta, T* c, int64_t ldc) {
  // A product with one row or one column is a matrix-vector product: OpenBLAS's sgemm packs the whole
  // matrix first, which for a batch-1 linear layer costs as much as the product (ResNet-18's fc at
  // batch 1 took 1.8x ONNX Runtime's time). With beta 0, C is cleared first: gemv computes beta * y,
  // the uninitialised output may hold NaN, and whether a library special-cases beta 0 is its own choice.
  if (m == 1 || n == 1) {
    const int64_t len = m == 1 ? n : m, inc = m == 1 ? 1 : ldc;
    if (beta == T(0))
      for (int64_t i = 0; i < len; ++i) c[i * inc] = T(0);
    if (m == 1)  // c = op(B)^T a: B is n x k (tb) or k x n
      gemv(!tb, tb ? n : k, tb ? k : n, alpha, b, ldb, a, ta ? lda : 1, beta, c, inc);
    else  // c = op(A) b: A is m x k or k x m (ta)
      gemv(ta, ta ? k : m, ta ? m : k, alpha, a, lda, b, tb ? 1 : ldb, beta, c, inc);
    return;
  }
  const auto opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>)
    fns().sgemm(CblasRowMajor, opa, opb, mi, ni, ki, alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
  else
    fns().dgemm(CblasRowMajor, opa, opb, mi, ni, ki, alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  fns();  // a missing library fails here, on the calling thread, before any block is cut
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  // One block per pool thread along the longer side of C; each block packs the other operand again,
  // which costs little once the block has kBlockAlign rows or columns.
  const bool rows = m >= n;
  const int64_t len = rows ? m : n;
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t parts = std::min(threads, len / kBlockAlign);
  if (m * n * k < kBlasSerialWork || parts < 2)
    return serial_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  const int64_t block = (len + parts - 1) / parts;
  const int64_t step = (block + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
  parallel_for((len + step - 1) / step, 1, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      const int64_t p0 = i * step, cnt = std::min(step, len - p0);
      if (rows)
        serial_gemm(ta, tb, cnt, n, k, alpha, a + (ta ? p0 : p0 * lda), lda, b, ldb, beta, c + p0 * ldc, ldc);
      else
        serial_gemm(ta, tb, m, cnt, k, alpha, a, lda, b + (tb ? p0 * ldb : p0), ldb, beta, c + p0, ldc);
    }
  });
}

}  // namespace

void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  gemm<float>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
               const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  gemm<double>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void blas_single_threaded() {
  if (const auto set = loaded().fns.set_num_threads) set(1);
}

std::string describe(const BlasInfo& info) {
  if (!info.error.empty()) return "BLAS unavailable: " + info.error;
  if (info.core.empty()) return "BLAS: " + info.library + " (" + info.chosen_by + ")";
  return "OpenBLAS core: " + info.core + " (" + info.chosen_by + "), " + info.library;
}

const BlasInfo& blas_info() { return loaded().info; }

void check_blas_library(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw PluginError("gemm", "cannot open the BLAS library " + library + ": " + dlerror());
  BlasFunctions f;
  const char* missing = resolve(handle, f);
  dlclose(handle);
  if (missing) throw PluginError("gemm", lacks(library, missing));
}

}  // namespace burn::cpu
